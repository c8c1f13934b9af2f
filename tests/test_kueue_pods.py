"""Kueue's Pod integration (framework ``pod``: plain pods and pod groups) in /v1/admissions
(app/kueue/pods.py).

Transcribed from kubernetes-sigs/kueue (commit ff69552e):

* the role hashes upstream tests hard-code: pkg/controller/jobs/pod/pod_controller_test.go
  ``TestReconciler`` (``"dc85db45"``: ``basePodWrapper``, one container requesting cpu 1;
  ``"4ebdd4a6"``: the same with memory 1Gi) and pod_webhook_test.go ``TestDefault``
  (``"a9f06f3a"``: ``MakePod`` with no request, its ``Requests`` a non-nil empty Go map).
  ``"a119f908"`` and ``"aaf269e6"`` in TestReconciler name podSets of prebuilt Workloads
  for roles no pod of those cases has: they are not computed by Kueue, nothing to check.
* pod_controller_test.go ``TestReconciler``: 22 of its cases (each test named after it): the
  Workload created for a pod and for a group (label or annotation group name, fast
  admission), skipped without the managed label, found, refused (no group marker), deleted
  (not matching, max exec time), finished (succeeded pod, all succeeded, unretriable, 2 of 3
  succeeded), not created (different queue names, too few runnable pods, finished group),
  excess pods before and after admission, an absent role, an ungated pod without a Workload.
  Not transcribed, as no stateless admission answer shows them: the cases about what Kueue
  does to running pods and admitted Workloads (ungating and node selectors on admission,
  eviction and preemption events, finalizers, replacement pods, reclaimable pods,
  WaitForPodsReady conditions, queue-name changes of admitted groups, labels and annotations
  copied to the Workload, admission-check events, the pod-index label checks).
* pod_webhook_test.go ``TestValidateCreate``: its 22 cases (the "pod owner is managed by
  kueue" case only as no error: its admission warning is not echoed). ``TestDefault``'s role
  hash above; its other cases (the defaults) by the rule tests below. ``TestValidateUpdate``
  concerns updates: not applicable.
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
    ("1000", "1k"), ("1e3", "1e3"), ("1E3", "1E3"), ("2E", "2E"), ("1.5Ki", "1536"), ("100m", "100m"), ("0", "0"),
    ("1023Ki", "1023Ki"), ("512", "512"), ("0.1Ki", "102400m"),
])  # fmt: skip
def test_quantity_canonical_string(raw: str, want: str) -> None:
    assert pods.quantity_string(raw, "", {}) == want


@pytest.mark.parametrize(("raw", "want"), [
    # kept as written: ParseQuantity's int64 fast path deems the text canonical (scale a multiple of 3,
    # the digits not starting with 0 nor ending in 000)
    ("1.500", "1.500"), ("+1", "+1"), ("-1.500", "-1.500"), ("12.345", "12.345"), ("1.500k", "1.500k"),
    ("+1Ki", "+1Ki"), ("1E3", "1E3"), ("100m", "100m"), ("01", "01"),  # (leading zeros are stripped before the check)
    # rebuilt by CanonicalizeBytes
    ("1.5", "1500m"), ("1.000", "1"), ("0.5", "500m"), ("8Ki", "8Ki"), ("16Ki", "16Ki"),
    ("+0", "0"), ("1.5k", "1500"), ("1.2345", "1234500u"),
])  # fmt: skip
def test_quantity_text_go_keeps_as_written(raw: str, want: str) -> None:
    """Quantity.MarshalJSON returns the cached string ParseQuantity kept (vendor/k8s.io/apimachinery/pkg/api/resource/
    quantity.go: ParseQuantity's "if the number is in canonical form, reuse the string", MarshalJSON's q.s)."""
    assert pods.quantity_string(raw, "", {}) == want


def test_quantity_text_go_keeps_as_written_changes_the_role_hash() -> None:
    as_written = pods.generate_role_hash(make_pod_spec({"cpu": "1.500"}), "/spec", {})
    assert as_written != pods.generate_role_hash(make_pod_spec({"cpu": "1500m"}), "/spec", {})
    assert pods.generate_role_hash(make_pod_spec({"cpu": "1.5"}), "/spec", {}) == \
        pods.generate_role_hash(make_pod_spec({"cpu": "1500m"}), "/spec", {})


def test_a_malformed_spec_field_is_a_422_at_its_pointer() -> None:
    with pytest.raises(InputError) as e:
        pods.generate_role_hash({"containers": [{"resources": {"requests": {"cpu": "x1"}}}]}, "/objects/0/spec", {})
    assert e.value.pointer == "/objects/0/spec/containers/0/resources/requests/cpu"
    with pytest.raises(InputError) as e:
        pods.generate_role_hash({"tolerations": [{"key": 3}]}, "/objects/0/spec", {})
    assert e.value.pointer == "/objects/0/spec/tolerations/0/key"


# -- through POST /v1/admissions ------------------------------------------------------------
from tests.kube import pod as kpod  # noqa: E402
from tests.test_admissions import body, post, problem  # noqa: E402,F401
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


# -- pkg/controller/jobs/pod/pod_controller_test.go: TestReconciler ----------------------------
# Each case's pods and Workloads rebuilt with the upstream wrappers' fields (basePodWrapper: pod
# "pod" in "ns", uid "test-uid", queue "user-queue", one container requesting cpu 1), read
# through pods.resolve with the pod integration enabled. What the cases check of pods (finalizers,
# events) is no admission answer: only whether a Workload is created, found or finished, and its
# podSets, are compared.
def base_pod(name: str = "pod", *, managed: bool = True, gated: bool = True, group: str = "", total: str | None = None,
             phase: str = "", requests: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
             group_annotation: bool = False, queue: str = "user-queue", created: str | None = None) -> dict[str, Any]:  # fmt: skip
    labels = {Q: queue} if queue else {}
    ann = dict(annotations or {})
    if managed:
        labels.update(MANAGED)
    if group:
        (ann if group_annotation else labels)["kueue.x-k8s.io/pod-group-name"] = group
    if total is not None:
        ann["kueue.x-k8s.io/pod-group-total-count"] = total
    meta: dict[str, Any] = {"name": name, "namespace": "ns", "uid": "test-uid", "labels": labels, "annotations": ann}
    if created:
        meta["creationTimestamp"] = created
    p: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                         "spec": {**make_pod_spec(requests or {"cpu": "1"}), "schedulingGates": list(GATE) if gated else []}}  # fmt: skip
    if phase:
        p["status"] = {"phase": phase}
    return p


def make_wl(name: str, pod_sets: list[tuple[str, int, dict[str, str]]], *, group: bool = False,
            owners: list[tuple[str, bool]] = (), admitted: bool = False, finished: bool = False) -> dict[str, Any]:  # fmt: skip
    """``utiltestingapi.MakeWorkload(name, "ns")`` with ``PodSets``, ``Group()`` (the
    is-group-workload annotation), owner references to pods (controller or not), admitted."""
    meta: dict[str, Any] = {"name": name, "namespace": "ns", "uid": f"wl-{name}",
                            "creationTimestamp": "2026-11-23T10:00:00Z",
                            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": n, "uid": "test-uid",
                                                 **({"controller": True} if c else {})} for n, c in owners]}  # fmt: skip
    if group:
        meta["annotations"] = {"kueue.x-k8s.io/is-group-workload": "true"}
    spec = {"queueName": "user-queue", "podSets": [
        {"name": n, "count": c, "template": {"spec": {"containers": [{"name": "c", "image": "pause", "resources": {"requests": req}}],
                                                      "restartPolicy": "Never"}}} for n, c, req in pod_sets]}  # fmt: skip
    conds = []
    if admitted:
        conds += [{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}]
    if finished:
        conds.append({"type": "Finished", "status": "True"})
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": meta, "spec": spec,
            "status": {"conditions": conds}}


CPU = {"cpu": "1"}


def reconcile(pod_objs: list[dict[str, Any]], wls: list[dict[str, Any]] = (), now: float = 0.0,  # type: ignore[assignment]
              **gates: bool) -> list[Any]:  # fmt: skip
    """``gates``: JobInput's feature gate fields (id_annotations, validate_group_owner, fast_release)."""
    jin = pods.jobs.JobInput(frameworks=("pod",), **gates)
    return pods.resolve([(p, f"/objects/{i}") for i, p in enumerate(pod_objs)], jin,
                        [(w, f"/workloads/{i}") for i, w in enumerate(wls)], now=now, local_queues=set(), wpcs={},
                        namespaces=None, limits={}, runtime_classes={})  # fmt: skip


def made(o: Any) -> list[tuple[str, int]]:
    return [(ps.name, ps.count) for ps in o.workload.pod_sets] if o.workload is not None else []


def test_TestReconciler_the_workload_is_created_when_queue_name_is_set() -> None:
    [o] = reconcile([base_pod(queue="test-queue")])
    assert o.workload.name == pods.jobs.workload_name("pod", "test-uid", "Pod", "") and made(o) == [("main", 1)]
    assert o.workload.queue_name == "test-queue" and o.workload.priority == 0


def test_TestReconciler_the_pod_reconciliation_is_skipped_when_managed_label_is_not_set() -> None:
    [o] = reconcile([base_pod(managed=False, gated=False)])
    assert o.workload is None and not o.existing and "kueue.x-k8s.io/managed" in o.note


def test_TestReconciler_non_matching_admitted_workload_is_deleted_and_pod_is_finalized() -> None:
    [o] = reconcile([base_pod(gated=False)], [make_wl("unit-test", [("main", 2, CPU)], owners=[("pod", True)], admitted=True)])
    assert "ns/unit-test" in o.drop and not o.existing


def test_TestReconciler_pod_is_finalized_when_its_succeeded() -> None:
    [o] = reconcile([base_pod(gated=False, phase="Succeeded")],
                    [make_wl("unit-test", [("main", 1, CPU)], owners=[("pod", True)], admitted=True)])  # fmt: skip
    assert "finishes" in o.drop["ns/unit-test"] and o.workload is None


@pytest.mark.parametrize("group_annotation", [False, True])  # "..., WorkloadIdentifierAnnotations enabled"
def test_TestReconciler_workload_is_composed_and_created_for_the_pod_group(group_annotation: bool) -> None:
    [o] = reconcile([base_pod(group="test-group", total="2", group_annotation=group_annotation),
                     base_pod("pod2", group="test-group", total="2", group_annotation=group_annotation)])
    assert o.workload.name == "test-group" and made(o) == [("dc85db45", 2)]
    assert o.workload.owner["name"] == "test-group" and o.workload.queue_name == "user-queue"


def test_TestReconciler_workload_is_composed_and_created_for_the_pod_group_with_fast_admission() -> None:
    [o] = reconcile([base_pod(group="test-group", total="3", annotations={"kueue.x-k8s.io/pod-group-fast-admission": "true"})])
    assert made(o) == [("dc85db45", 3)]


def test_TestReconciler_workload_is_found_for_the_pod_group() -> None:
    wl = make_wl("test-group", [("dc85db45", 2, CPU)], group=True, owners=[("pod", False), ("pod2", False)])
    [o] = reconcile([base_pod(group="test-group", total="2"), base_pod("pod2", group="test-group", total="2")], [wl])
    assert o.existing == "ns/test-group" and o.workload is None and not o.drop


def test_TestReconciler_pod_group_does_not_adopt_a_workload_that_is_not_a_pod_group_workload() -> None:
    wl = make_wl("shared-wl-name", [("dc85db45", 1, CPU)])
    [o] = reconcile([base_pod(group="shared-wl-name", total="1")], [wl])
    assert not o.existing and o.workload is None and "not a pod group workload" in o.note


def test_TestReconciler_workload_is_not_finished_if_the_pod_in_the_group_is_running() -> None:
    wl = make_wl("test-group", [("dc85db45", 2, CPU)], group=True, owners=[("pod", False), ("pod2", False)], admitted=True)
    [o] = reconcile([base_pod(group="test-group", total="2", gated=False, phase="Running"),
                     base_pod("pod2", group="test-group", total="2", gated=False, phase="Succeeded")], [wl])
    assert o.existing == "ns/test-group" and not o.drop


def test_TestReconciler_workload_is_finished_if_all_pods_in_the_group_has_finished() -> None:
    wl = make_wl("test-group", [("dc85db45", 2, CPU)], group=True, owners=[("pod", False), ("pod2", False)], admitted=True)
    [o] = reconcile([base_pod(group="test-group", total="2", gated=False, phase="Succeeded"),
                     base_pod("pod2", group="test-group", total="2", gated=False, phase="Succeeded")], [wl])
    assert "finishes" in o.drop["ns/test-group"] and not o.existing


def test_TestReconciler_workload_for_pod_group_with_different_queue_names_shouldnt_be_created() -> None:
    [o] = reconcile([base_pod(group="test-group", total="2"), base_pod("pod2", group="test-group", total="2", queue="test-queue")])
    assert o.workload is None and "has different queue names: user-queue!=test-queue" in o.note


def test_TestReconciler_if_pod_group_is_finished_and_wl_is_deleted_new_workload_shouldnt_be_created() -> None:
    [o] = reconcile([base_pod(group="test-group", total="2", gated=False, phase="Succeeded"),
                     base_pod("pod2", group="test-group", total="2", gated=False, phase="Succeeded")])
    assert o.workload is None and "finished" in o.note


def test_TestReconciler_if_pod_in_group_is_scheduling_gated_and_wl_is_deleted_workload_should_be_recreated() -> None:
    [o] = reconcile([base_pod(group="test-group", total="2"), base_pod("pod2", group="test-group", total="2")])
    assert made(o) == [("dc85db45", 2)]


def test_TestReconciler_if_theres_not_enough_non_failed_pods_in_the_group_workload_should_not_be_created() -> None:
    [o] = reconcile([base_pod(group="test-group", total="3"), base_pod("pod2", group="test-group", total="3", phase="Failed")])
    assert o.workload is None and "'test-group' group has fewer runnable pods than expected" in o.note


def test_TestReconciler_pod_group_is_considered_finished_if_there_is_an_unretriable_pod_and_no_running_pods() -> None:
    wl = make_wl("test-group", [("a119f908", 1, {"cpu": "1", "memory": "1Gi"}), ("dc85db45", 2, CPU)], group=True,
                 owners=[("pod", False), ("pod2", False), ("pod3", False)], admitted=True)  # fmt: skip
    [o] = reconcile([base_pod(group="test-group", total="3", gated=False, phase="Failed",
                              annotations={"kueue.x-k8s.io/retriable-in-group": "false"}),
                     base_pod("pod2", group="test-group", total="3", gated=False, phase="Succeeded"),
                     base_pod("pod3", group="test-group", total="3", gated=False, phase="Failed",
                              requests={"cpu": "1", "memory": "1Gi"})], [wl])  # fmt: skip
    assert "finishes" in o.drop["ns/test-group"]
    assert not o.existing and o.workload is None


def test_TestReconciler_excess_pods_before_wl_creation_youngest_pods_are_deleted() -> None:
    [o] = reconcile([base_pod(group="test-group", total="1", created="2026-11-23T10:00:00Z"),
                     base_pod("pod2", group="test-group", total="1", created="2026-11-23T10:02:00Z")])
    assert made(o) == [("dc85db45", 1)] and any("excess pod(s) (ns/pod2)" in x for x in o.unmodelled)


def test_TestReconciler_workload_is_recreated_when_max_exec_time_changes() -> None:
    wl = make_wl("test-group", [("dc85db45", 2, CPU)], group=True, owners=[("pod", False), ("pod2", False)])
    wl["spec"]["maximumExecutionTimeSeconds"] = 10
    lab = {"kueue.x-k8s.io/max-exec-time-seconds": "20"}
    p1, p2 = base_pod(group="test-group", total="2"), base_pod("pod2", group="test-group", total="2")
    for p in (p1, p2):
        p["metadata"]["labels"].update(lab)
    [o] = reconcile([p1, p2], [wl])
    # (upstream: "Updated not matching Workload for suspended job: ns/test-group": rewritten in place)
    assert o.replaces == "ns/test-group" and not o.drop and made(o) == [("dc85db45", 2)]
    assert any("maximumExecutionTimeSeconds" in x and "rewrites its spec" in x for x in o.unmodelled)


def test_TestReconciler_pod_group_adopts_a_foreign_workload_when_PodIntegrationValidateGroupOwner_is_disabled() -> None:
    wl = make_wl("shared-wl-name", [("main", 1, CPU)])
    [o] = reconcile([base_pod(group="shared-wl-name", total="1")], [wl], id_annotations=False, validate_group_owner=False)
    assert o.replaces == "ns/shared-wl-name" and made(o) == [("dc85db45", 1)] and o.workload.name == "shared-wl-name"


def test_a_non_matching_workload_of_a_suspended_pod_group_holding_quota_is_deleted_not_rewritten() -> None:
    wl = make_wl("test-group", [("other", 2, CPU)], group=True, admitted=True)
    [o] = reconcile([base_pod(group="test-group", total="2"), base_pod("pod2", group="test-group", total="2")], [wl])
    assert not o.replaces and "Kueue deletes it" in o.drop["ns/test-group"] and made(o) == [("dc85db45", 2)]


def test_a_non_matching_workload_of_an_incomplete_pod_group_stays_as_it_is() -> None:
    wl = make_wl("test-group", [("other", 2, CPU)], group=True)
    [o] = reconcile([base_pod(group="test-group", total="3"), base_pod("pod2", group="test-group", total="3")], [wl])
    assert not o.replaces and not o.drop and o.workload is None and "stays as it is" in o.note


def test_updateWorkloadToMatchJob_rewrites_a_groups_workload_while_a_pod_runs() -> None:
    # reconciler.go ensureOneWorkload: toUpdate needs only no match, IsSuspended (a pod gated) and
    # no quota; IsActive is handleJobWithNoWorkload's wait, which a rewrite never reaches
    wl = make_wl("test-group", [("other", 1, CPU)], group=True)
    running = base_pod(group="test-group", total="2", phase="Running", gated=False)
    [o] = reconcile([running, base_pod("pod2", group="test-group", total="2")], [wl])
    assert o.replaces == "ns/test-group" and not o.drop and made(o) == [("dc85db45", 2)]


def test_updateWorkloadToMatchJob_then_finished_a_finished_groups_non_matching_workload_is_finished() -> None:
    # ensureOneWorkload rewrites it (both pods terminated: suspended), then step 3 finishes it
    wl = make_wl("test-group", [("other", 1, CPU)], group=True)
    done = [base_pod(n, group="test-group", total="2", phase="Succeeded", gated=False) for n in ("pod", "pod2")]
    [o] = reconcile(done, [wl])
    assert o.workload is None and not o.replaces and "then finishes it" in o.drop["ns/test-group"]
    assert not any("ungated" in x for x in o.unmodelled)


def test_a_non_matching_workload_of_a_suspended_single_pod_is_rewritten_in_place() -> None:
    wl = make_wl("old-wl", [("main", 1, {"cpu": "2"})], owners=[("pod", True)])
    [o] = reconcile([base_pod()], [wl])
    assert o.replaces == "ns/old-wl" and not o.drop and o.workload.name == "old-wl" and made(o) == [("main", 1)]


def test_a_non_matching_workload_of_an_ungated_single_pod_is_deleted() -> None:
    wl = make_wl("old-wl", [("main", 1, {"cpu": "2"})], owners=[("pod", True)])
    [o] = reconcile([base_pod(gated=False)], [wl])
    assert not o.replaces and "Kueue deletes it" in o.drop["ns/old-wl"]


def test_WorkloadIdentifierAnnotations_off_the_group_name_annotation_is_not_read() -> None:
    ann = {"kueue.x-k8s.io/pod-group-name": "g"}
    [on] = reconcile([base_pod(total="1", annotations=ann)])
    assert on.job.name == "g" and made(on) == [("dc85db45", 1)]
    [off] = reconcile([base_pod(total="1", annotations=ann, group="lbl")], id_annotations=False)
    assert off.job.name == "lbl"
    [single] = reconcile([base_pod(annotations=ann)], id_annotations=False)
    assert single.job.name == "pod"  # (a single pod: the annotation names no group with the gate off)


def test_WorkloadIdentifierAnnotations_off_the_prebuilt_workload_name_is_the_label() -> None:
    job = pods._job(pods.read_pod(base_pod(annotations={PB_: "ann-wl"}), "/p"))
    assert pods.jobs.prebuilt_name(job) == ("ann-wl", "annotations")
    job.id_annotations = False
    assert pods.jobs.prebuilt_name(job) == ("", "labels")
    job.labels[PB_] = "label-wl"
    assert pods.jobs.prebuilt_name(job) == ("label-wl", "labels")
    job.annotations[PB_] = "a" * 64  # (longer than a label value: read, and its path, with the gate off too)
    assert pods.jobs.prebuilt_name(job) == ("label-wl", "annotations")


def test_FastQuotaReleaseInPodIntegration_a_terminating_running_pod_is_inactive() -> None:
    pods_ = [base_pod(group="g", total="2", phase="Running", gated=False), base_pod("pod2", group="g", total="2")]
    pods_[0]["metadata"]["deletionTimestamp"] = "2026-11-23T10:00:00Z"
    [waits] = reconcile(pods_)
    assert waits.workload is None and "running pods" in waits.note
    [fast] = reconcile(pods_, fast_release=True)
    assert "running pods" not in fast.note


def test_IsActive_a_running_pod_past_its_deletion_grace_period_is_inactive() -> None:
    pods_ = [base_pod(group="g", total="2", phase="Running", gated=False), base_pod("pod2", group="g", total="2")]
    pods_[0]["metadata"].update(deletionTimestamp="2026-11-23T10:00:00Z", deletionGracePeriodSeconds=30)
    t0 = pods.r.timestamp("2026-11-23T10:00:00Z", "", {})
    [within] = reconcile(pods_, now=t0 + 30)
    assert "running pods" in within.note
    [past] = reconcile(pods_, now=t0 + 31)
    assert "running pods" not in past.note


def test_sortActivePods_compares_creation_timestamps_as_times() -> None:
    a = pods.read_pod(base_pod("a", created="2026-11-23T10:00:00+02:00"), "/a")  # (08:00Z: as text, after b)
    b = pods.read_pod(base_pod("b", created="2026-11-23T09:00:00Z"), "/b")
    c = pods.read_pod(base_pod("c"), "/c")  # (unset: the zero time, oldest)
    assert [p.name for p in pods._sort_active([b, a, c])] == ["c", "a", "b"]


# -- pkg/controller/jobs/pod/pod_webhook_test.go: TestValidateCreate ---------------------------
PB_ = "kueue.x-k8s.io/prebuilt-workload-name"
GN, TC, PB = "kueue.x-k8s.io/pod-group-name", "kueue.x-k8s.io/pod-group-total-count", "kueue.x-k8s.io/prebuilt-workload-name"
REQ, PREF = "kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology"


def make_pod(labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """``testingpod.MakePod("test-pod", "test-ns")`` with labels and annotations (no uid: a manifest)."""
    return {"apiVersion": "v1", "kind": "Pod", "spec": make_pod_spec(),
            "metadata": {"name": "test-pod", "namespace": "test-ns", "labels": dict(labels or {}),
                         "annotations": dict(annotations or {})}}  # fmt: skip


def at(where: str, key: str) -> str:
    return f"/objects/0/metadata/{where}/{key.replace('/', '~1')}"


def webhook(p: dict[str, Any]) -> list[tuple[str, str]]:
    """(pointer, Kubernetes field path and error type) of each error of Kueue's pod webhook, in its order."""
    job = pods._job(pods.read_pod(p, "/objects/0"))
    return [(e.pointer, e.detail.removeprefix("Kueue's Pod webhook rejects it: ").split(": ")[0] + ": " +
             e.detail.removeprefix("Kueue's Pod webhook rejects it: ").split(": ")[1]) for e in pods.webhook_errors(job)]  # fmt: skip


M = dict(MANAGED)


@pytest.mark.parametrize(("p", "want"), [
    # "pod owner is managed by kueue": no error (its warning is not echoed: Gangplank answers no admission warnings)
    pytest.param(make_pod(M), [], id="pod owner is managed by kueue"),
    pytest.param(make_pod({**M, GN: "test-group"}),
                 [(at("annotations", TC), f"metadata.annotations[{TC}]: Required value")],
                 id="pod with group name and no group total count"),
    pytest.param(make_pod(M, {TC: "3"}), [(at("labels", GN), f"metadata.labels[{GN}]: Required value")],
                 id="pod with group total count and no group name"),
    pytest.param(make_pod({**M, GN: "test-group"}, {TC: "0"}),
                 [(at("annotations", TC), f"metadata.annotations[{TC}]: Invalid value")], id="pod with 0 group total count"),
    pytest.param(make_pod({**M, GN: "test-group"}, {TC: ""}),
                 [(at("annotations", TC), f"metadata.annotations[{TC}]: Invalid value")], id="pod with empty group total count"),
    pytest.param(make_pod({**M, GN: "notAdns1123Subdomain*"}, {TC: "2"}),
                 [(at("labels", GN), f"metadata.labels[{GN}]: Invalid value")], id="pod with incorrect group name"),
    pytest.param(make_pod(M, {REQ: "cloud.com/block"}), [], id="valid topology request"),
    pytest.param(make_pod(M, {REQ: "cloud.com/block", PREF: "cloud.com/block"}),
                 [("/objects/0/metadata/annotations", "metadata.annotations: Invalid value")], id="invalid topology request"),
    pytest.param(make_pod({PB: "workload-name"}), [], id="prebuilt workload for pod"),
    pytest.param(make_pod({PB: "group-name", GN: "group-name"}, {TC: "3"}), [], id="prebuilt workload for pod group valid"),
    pytest.param(make_pod({PB: "workload-name", GN: "group-name"}, {TC: "3"}),
                 [(at("labels", PB), f"metadata.labels[{PB}]: Invalid value")], id="prebuilt workload for pod group invalid"),
    pytest.param(make_pod({}, {PB: "workload-name"}), [],
                 id="prebuilt workload annotation for pod, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_pod({PB: "workload-name"}), [],
                 id="prebuilt workload label fallback for pod, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_pod({PB: "workload-a"}, {PB: "workload-b"}), [],
                 id="prebuilt workload different label and annotation, label ignored, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_pod({}, {PB: "group-name", GN: "group-name", TC: "3"}), [],
                 id="prebuilt workload annotation matches group name annotation, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_pod({}, {PB: "workload-name", GN: "group-name", TC: "3"}),
                 [(at("annotations", PB), f"metadata.annotations[{PB}]: Invalid value")],
                 id="prebuilt workload annotation mismatches group name annotation, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_pod({PB: "workload-name"}, {GN: "group-name", TC: "3"}),
                 [(at("labels", PB), f"metadata.labels[{PB}]: Invalid value")],
                 id="prebuilt workload label mismatches group name annotation, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_pod({GN: "group-name"}, {PB: "workload-name", TC: "3"}),
                 [(at("annotations", PB), f"metadata.annotations[{PB}]: Invalid value")],
                 id="prebuilt workload annotation mismatches group name label, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_pod({GN: "group name"}, {TC: "3"}), [(at("labels", GN), f"metadata.labels[{GN}]: Invalid value")],
                 id="invalid group name"),
    pytest.param(make_pod({GN: "group name"}, {TC: "3"}), [(at("labels", GN), f"metadata.labels[{GN}]: Invalid value")],
                 id="invalid group name label, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_pod({}, {GN: "group name", TC: "3"}),
                 [(at("annotations", GN), f"metadata.annotations[{GN}]: Invalid value")],
                 id="invalid group name annotation, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_pod({GN: "group-name-a"}, {GN: "group-name-b", TC: "3"}), [],
                 id="different group name label and annotation, label ignored, WorkloadIdentifierAnnotations enabled"),
])  # fmt: skip
def test_TestValidateCreate(p: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert webhook(p) == want


def test_TestValidateCreate_messages_are_kueues() -> None:
    job = pods._job(pods.read_pod(make_pod({**M, GN: "g"}, {TC: "0"}), "/objects/0"))
    [e] = pods.webhook_errors(job)
    assert e.detail == (f"Kueue's Pod webhook rejects it: metadata.annotations[{TC}]: Invalid value: \"0\": incorrect "
                        f"annotation value '{TC}=0': group total count should be greater than zero")  # fmt: skip
    job = pods._job(pods.read_pod(make_pod({**M, GN: "g"}), "/objects/0"))
    [e] = pods.webhook_errors(job)
    assert e.detail.endswith(f"Required value: both the '{TC}' annotation and the '{GN}' label should be set")


# -- rules, through POST /v1/admissions (ClusterQueue cq of 16 GPUs, LocalQueue ml/lq) ---------
def answer(client, *objs: dict[str, Any], gpus: int = 16) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return post(client, body([], queues(gpus) + [PODS, *objs]))


def test_a_pod_group_gets_one_workload_named_after_the_group_with_a_podset_per_role(client):
    # two roles: the podSets are named by role hash, sorted by name, counted
    a = answer(client, gpod("a", group="g", total=3), gpod("b", group="g", total=3), gpod("c", 4, group="g", total=3), gpus=24)
    [w] = a["workloads"]
    h8 = pods.generate_role_hash(gpod("a")["spec"], "", {})
    h0 = pods.generate_role_hash(gpod("c", 4)["spec"], "", {})
    assert w["workload"] == "ml/g" and w["owner"] == {"apiVersion": "v1", "kind": "Pod", "name": "g", "uid": None,
                                                      "constructed": True}  # fmt: skip
    assert sorted([(p["name"], p["count"]) for p in w["podSets"]]) == sorted([(h8, 2), (h0, 1)])
    assert [p["name"] for p in w["podSets"]] == sorted([h8, h0]) and w["reason"] == "Admitted"


def test_a_pod_group_is_admitted_all_or_nothing(client):
    a = answer(client, gpod("a", group="g", total=3), gpod("b", group="g", total=3), gpod("c", group="g", total=3))
    [w] = a["workloads"]
    assert w["reason"] == "InsufficientQuota" and not w["admitted"]  # 24 GPUs asked of 16: none of the three


def test_the_role_hash_annotation_names_the_podset(client):
    ann = {pods.ROLE_HASH_ANNOTATION: "leader"}
    a = answer(client, gpod("a", group="g", total=2, annotations=ann), gpod("b", group="g", total=2))
    [w] = a["workloads"]
    assert [(p["name"], p["count"]) for p in w["podSets"]] == sorted([("leader", 1), (pods.generate_role_hash(gpod("b")["spec"], "", {}), 1)])


def test_an_incomplete_pod_group_gets_no_workload_and_is_named(client):
    a = post(client, body([], queues() + [PODS, gpod("a", group="g", total=2), gpod("solo")]))
    assert [w["workload"] for w in a["workloads"]] == [pod_wl("solo", "uid-solo")]
    assert any("'g' group has fewer runnable pods than expected (1 of 2)" in x for x in a["warnings"])


def test_a_failed_pod_does_not_count_toward_its_group(client):
    a = answer(client, gpod("a", group="g", total=2), gpod("b", group="g", total=2, phase="Failed"), gpod("solo"))
    assert "ml/g" not in by_key(a)


def test_a_finished_pod_gets_no_workload(client):
    a = answer(client, gpod("done", phase="Succeeded"), gpod("solo"))
    assert list(by_key(a)) == [pod_wl("solo", "uid-solo")]


def test_a_pod_without_the_managed_label_is_not_kueues(client):
    p = gpod("free")
    del p["metadata"]["labels"]["kueue.x-k8s.io/managed"]
    a = answer(client, p, gpod("solo"))
    assert list(by_key(a)) == [pod_wl("solo", "uid-solo")]


def test_a_pod_whose_owner_kueue_manages_runs_in_the_owners_workload(client):
    from tests.test_kueue_jobs import job

    j = job("train", 1)
    p = gpod("train-x")
    p["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": "uid-train",
                                         "controller": True}]  # fmt: skip
    a = answer(client, j, p)
    assert all(w["owner"]["kind"] == "Job" for w in a["workloads"])
    assert any("v1 Pod ml/train-x: no Workload: its ancestor Job ml/train is managed by Kueue" in x for x in a["warnings"])


def test_a_pods_workload_of_the_snapshot_is_answered_for_it(client):
    p = gpod("solo")
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
          "metadata": {"name": "pod-solo-x", "namespace": "ml", "creationTimestamp": "2026-11-23T09:00:00Z",
                       "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "solo", "uid": "uid-solo", "controller": True}]},
          "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {"spec": p["spec"]}}]}}  # fmt: skip
    a = answer(client, p, wl)
    [w] = a["workloads"]
    assert w["workload"] == "ml/pod-solo-x" and w["owner"]["constructed"] is False and w["reason"] == "Admitted"


def test_a_pod_groups_workload_of_the_snapshot_is_the_one_named_after_the_group(client):
    a_, b_ = gpod("a", group="g", total=2), gpod("b", group="g", total=2)
    h = pods.generate_role_hash(a_["spec"], "", {})
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
          "metadata": {"name": "g", "namespace": "ml", "annotations": {"kueue.x-k8s.io/is-group-workload": "true"},
                       "creationTimestamp": "2026-11-23T09:00:00Z"},
          "spec": {"queueName": "lq", "podSets": [{"name": h, "count": 2, "template": {"spec": a_["spec"]}}]}}  # fmt: skip
    a = answer(client, a_, b_, wl)
    [w] = a["workloads"]
    assert w["workload"] == "ml/g" and w["owner"] == {"apiVersion": "v1", "kind": "Pod", "name": "g", "uid": None,
                                                      "constructed": False}  # fmt: skip
    # without the is-group-workload marker Kueue refuses to adopt it (PodIntegrationValidateGroupOwner)
    del wl["metadata"]["annotations"]
    a = answer(client, a_, b_, wl)
    assert by_key(a)["ml/g"]["owner"] is None
    assert any("not a pod group workload" in x for x in a["warnings"])


def test_a_pod_priority_class_label_gives_the_workload_its_priority(client):
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "high"}, "value": 1000}
    a = answer(client, wpc, gpod("solo", labels={"kueue.x-k8s.io/priority-class": "high"}))
    assert a["workloads"][0]["priority"] == 1000


def test_a_pod_manifest_passes_kueues_pod_webhook_defaults(client):
    # no uid: the webhook's defaults (managed label, gate, role hash), then its checks
    p = gpod("new", uid="", labels={})
    del p["metadata"]["labels"]["kueue.x-k8s.io/managed"]
    p["spec"]["schedulingGates"] = []
    a = answer(client, p)
    [w] = a["workloads"]
    assert w["workload"] == pod_wl("new", "") and w["reason"] == "Admitted"
    assert any("has no metadata.uid (a manifest)" in x for x in a["warnings"])


def test_a_pod_manifest_with_a_group_name_and_no_total_count_is_a_422(client):
    p = gpod("new", uid="", group="g", total=2)
    del p["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"]
    err = problem(client, body([], queues() + [PODS, p]))
    assert err["pointer"].endswith("/metadata/annotations/kueue.x-k8s.io~1pod-group-total-count")
    assert "Required value: both the 'kueue.x-k8s.io/pod-group-total-count' annotation" in err["detail"]


def test_a_malformed_pod_spec_is_a_422_at_its_field(client):
    p = gpod("bad", group="g", total=1)
    p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
    err = problem(client, body([], queues() + [PODS, p]))
    assert err["pointer"].endswith("/spec/containers/0/resources/requests/cpu")
    p = gpod("bad", group="g", total=1)  # (a group's pods are hashed: their role is read)
    p["spec"]["tolerations"] = [{"key": 1}]
    assert problem(client, body([], queues() + [PODS, p]))["pointer"].endswith("/spec/tolerations/0/key")


def test_pods_suspended_by_a_parent_integration_are_named(client):
    # a LeaderWorkerSet's pods (its framework implies pod) run within their group's Workload
    # (tests/test_kueue_leaderworkerset.py); a parent Gangplank has no integration for is named
    lws = "leaderworkerset.x-k8s.io/leaderworkerset"
    cfg = _config(integrations={"frameworks": ["batch/job", lws]})
    p = gpod("web-1", annotations={"kueue.x-k8s.io/pod-suspending-parent": lws})
    from tests.test_kueue_jobs import job

    a = post(client, body([], queues() + [cfg, p, job("train", 1)]))
    assert any("runs within its LeaderWorkerSet group's Workload" in x for x in a["warnings"])
    cfg = _config(integrations={"frameworks": ["batch/job", "pod"]})
    p = gpod("web-1", annotations={"kueue.x-k8s.io/pod-suspending-parent": "example.com/other"})
    a = post(client, body([], queues() + [cfg, p, job("train", 1)]))
    assert any("suspended by a parent integration (kueue.x-k8s.io/pod-suspending-parent: example.com/other)" in x
               for x in a["warnings"])  # fmt: skip


def test_pod_answers_do_not_depend_on_object_order(client):
    objs = [gpod("a", group="g", total=2), gpod("b", 0, group="g", total=2), gpod("solo"), gpod("two", 4)]
    first = answer(client, *objs)
    again = answer(client, *reversed(objs))
    assert first["workloads"] == again["workloads"] and sorted(first["warnings"]) == sorted(again["warnings"])


def test_a_fast_admission_groups_count_is_its_total_count_bounded_as_a_jobs_pods(client):
    fast = {"kueue.x-k8s.io/pod-group-fast-admission": "true"}
    a = answer(client, gpod("a", group="g", total=2, annotations=fast))
    assert [(p["name"], p["count"]) for p in a["workloads"][0]["podSets"]][0][1] == 2  # one pod given, two counted
    # 2^31-1 pods of 8 GPUs: no quota, so none is made (they would count against GANGPLANK_MAX_OBJECTS)
    a = answer(client, gpod("a", group="g", total=2**31 - 1, annotations=fast))
    assert a["workloads"][0]["reason"] == "InsufficientQuota"
    a = answer(client, gpod("a", 1, group="g", total=2**32 + 5, annotations=fast), gpod("solo"))  # int32: 5
    assert [(p["name"], p["count"]) for p in by_key(a)["ml/g"]["podSets"]][0][1] == 5


def test_an_ungated_pod_without_a_workload_is_named_as_stopped_by_kueue(client):
    # TestReconciler "pod without scheduling gate is terminated if workload is not admitted"
    p = gpod("loose")
    p["spec"]["schedulingGates"] = []
    a = answer(client, p)
    assert any("Pod ml/loose is not gated and has no Workload" in x for x in a["warnings"])


def test_a_manifests_role_hash_sees_the_api_servers_defaults() -> None:
    # SetDefaults_Pod runs before Kueue's webhook: a limit without a request becomes the request,
    # a port without a protocol is TCP; a stored pod already carries both
    sent = {"containers": [{"name": "c", "ports": [{"containerPort": 80}], "resources": {"limits": {"cpu": "2"}}}]}
    stored = {"containers": [{"name": "c", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                              "resources": {"limits": {"cpu": "2"}, "requests": {"cpu": "2"}}}]}  # fmt: skip
    assert pods.generate_role_hash(sent, "", {}, manifest=True) == pods.generate_role_hash(stored, "", {})
    assert pods.generate_role_hash(sent, "", {}) != pods.generate_role_hash(stored, "", {})


def test_TestReconciler_workload_is_not_deleted_if_one_pod_role_is_absent_from_the_cluster() -> None:
    wl = make_wl("test-group", [("absent-pod-role", 1, CPU), ("dc85db45", 1, CPU)], group=True, owners=[("pod", True)],
                 admitted=True)  # fmt: skip
    p = base_pod(group="test-group", total="2", gated=False)
    p["metadata"]["deletionTimestamp"] = "2026-11-23T10:00:00Z"  # Delete()
    [o] = reconcile([p], [wl])
    assert o.existing == "ns/test-group" and not o.drop


def test_TestReconciler_pod_group_of_size_2_is_finished_when_2_pods_has_succeeded_and_1_pod_has_failed() -> None:
    wl = make_wl("test-group", [("dc85db45", 2, CPU)], group=True, owners=[("pod", False), ("pod2", False), ("pod3", False)],
                 admitted=True)  # fmt: skip
    [o] = reconcile([base_pod(group="test-group", total="2", gated=False, phase="Failed"),
                     base_pod("pod2", group="test-group", total="2", gated=False, phase="Succeeded"),
                     base_pod("pod3", group="test-group", total="2", gated=False, phase="Succeeded")], [wl])  # fmt: skip
    assert "finishes" in o.drop["ns/test-group"] and not o.existing


def test_TestReconciler_excess_pods_in_pod_set_after_admission_youngest_pods_are_deleted() -> None:
    # the Workload's second role has no pod here; its podSet of dc85db45 keeps the older pod
    wl = make_wl("test-group", [("aaf269e6", 1, CPU), ("dc85db45", 1, CPU)], group=True, owners=[("pod", False)],
                 admitted=True)  # fmt: skip
    [o] = reconcile([base_pod(group="test-group", total="2", gated=False, created="2026-11-23T10:00:00Z"),
                     base_pod("pod2", group="test-group", total="2", created="2026-11-23T10:02:00Z")], [wl])  # fmt: skip
    assert o.existing == "ns/test-group" and not o.drop
    assert any("1 excess pod(s) past its Workload's podSet counts (ns/pod2)" in x for x in o.unmodelled)


def test_the_cluster_readers_unread_group_label_warning_is_not_given_when_the_pod_integration_reads_it(client):
    a = answer(client, gpod("a", group="g", total=1))
    assert not any("pod(s) carry the label kueue.x-k8s.io/pod-group-name" in x for x in a["warnings"])


def test_required_during_execution_is_not_a_go_field_and_is_not_hashed() -> None:
    # core/v1 types.go: RequiredDuringSchedulingRequiredDuringExecution is commented out: Go drops it
    plain = make_pod_spec({"cpu": "1"})
    extra = make_pod_spec({"cpu": "1"})
    term = {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "zone"}
    extra["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingRequiredDuringExecution": {"nodeSelectorTerms": []}},
                         "podAffinity": {"requiredDuringSchedulingRequiredDuringExecution": [term]},
                         "podAntiAffinity": {"requiredDuringSchedulingRequiredDuringExecution": [term]}}  # fmt: skip
    plain["affinity"] = {"nodeAffinity": {}, "podAffinity": {}, "podAntiAffinity": {}}
    assert pods.generate_role_hash(extra, "/spec", {}) == pods.generate_role_hash(plain, "/spec", {})


def test_the_webhook_keeps_an_existing_role_hash_annotation(client):
    # addRoleHash sets getRoleHash's answer: the pod's own annotation when it has one
    p = gpod("new", uid="", labels={}, annotations={pods.ROLE_HASH_ANNOTATION: "custom"}, group="g", total=1)
    del p["metadata"]["labels"]["kueue.x-k8s.io/managed"]
    p["spec"]["schedulingGates"] = []
    [w] = answer(client, p)["workloads"]
    assert [ps["name"] for ps in w["podSets"]] == ["custom"]


def test_a_pod_that_is_no_business_of_kueues_is_not_refused_for_a_field_kueue_never_reads(client):
    """A stored pod without Kueue's labels (not a candidate) is not read strictly: its
    malformed finalizers are no 422, with the Pod integration on."""
    other = gpod("solo")
    other["metadata"]["labels"] = {}
    other["metadata"]["finalizers"] = [1]
    a = post(client, body([], queues() + [PODS, gpod("w"), other]))
    assert [w["workload"] for w in a["workloads"]] == [pod_wl("w", "uid-w")]


def test_pod_group_pod_index_label_must_be_an_unsigned_integer_below_the_total_count(client):
    """``validatePodGroupMetadata``'s ``ReadUIntFromLabelBelowBound`` on the group's first pod:
    a missing label is fine; "2" of a total of 2, or "x", means no Workload."""
    def group(index: str | None) -> list[dict]:
        ps = [gpod("a", group="g", total=2), gpod("b", group="g", total=2), gpod("solo")]
        if index is not None:
            ps[0]["metadata"]["labels"]["kueue.x-k8s.io/pod-group-pod-index"] = index
        return ps

    solo = pod_wl("solo", "uid-solo")
    assert [w["workload"] for w in post(client, body([], queues() + [PODS, *group(None)]))["workloads"]] == ["ml/g", solo]
    assert [w["workload"] for w in post(client, body([], queues() + [PODS, *group("1")]))["workloads"]] == ["ml/g", solo]
    for bad, why in (("2", "value should be less than 2"), ("x", "invalid syntax"), ("0001", None),
                     ("99999999999999999999999", "value out of range")):  # fmt: skip
        a = post(client, body([], queues() + [PODS, *group(bad)]))
        if why is None:
            assert [w["workload"] for w in a["workloads"]] == ["ml/g", solo]  # (leading zeros: 1 < 2)
        else:
            assert [w["workload"] for w in a["workloads"]] == [solo]
            assert any(why in x for x in a["warnings"])


def test_PodWebhook_Default_copies_the_label_named_by_pod_group_pod_index_label_into_the_pod_index(client):
    """pod_webhook.go Default (TopologyAwareScheduling, on by default): a suspended manifest's
    ``kueue.x-k8s.io/pod-group-pod-index-label`` annotation names a label whose value (""
    when absent) becomes its pod-group-pod-index label, which validatePodGroupMetadata reads."""
    def group(named: str, labels: dict[str, str]) -> list[dict]:
        ps = [gpod(n, group="g", total=2, uid="", labels=labels, annotations={pods.POD_INDEX_LABEL_ANNOTATION: named})
              for n in ("a", "b")]  # fmt: skip
        for p in ps:
            p["spec"]["schedulingGates"] = []
            p["metadata"]["labels"].pop("kueue.x-k8s.io/managed")
        return [*ps, gpod("solo")]

    solo = pod_wl("solo", "uid-solo")
    ok = post(client, body([], queues() + [PODS, *group("idx", {"idx": "1"})]))
    assert [w["workload"] for w in ok["workloads"]] == ["ml/g", solo]
    for named, labels, why in (("missing", {}, 'incorrect label value ""'), ("idx", {"idx": "2"}, "less than 2")):
        a = post(client, body([], queues() + [PODS, *group(named, labels)]))
        assert [w["workload"] for w in a["workloads"]] == [solo] and any(why in x for x in a["warnings"])


def test_podOptions_of_a_v1beta1_configuration_have_no_effect_and_are_named(client):
    """apis/config/v1beta1/configuration_conversion.go: Convert_v1beta1_Integrations_To_v1beta2_Integrations drops
    PodOptions; pod_webhook.go's SetupWebhook never sets the webhook's podSelector / namespaceSelector."""
    opts = {"podSelector": {"matchLabels": {"never": "x"}}, "namespaceSelector": {"matchLabels": {"never": "x"}}}
    conf = {**PODS, "apiVersion": "config.kueue.x-k8s.io/v1beta1",
            "integrations": {"frameworks": ["batch/job", "pod"], "podOptions": opts}}  # fmt: skip
    a = post(client, body([], queues() + [conf, gpod("solo")]))
    assert [w["workload"] for w in a["workloads"]] == [pod_wl("solo", "uid-solo")]
    assert any("integrations.podOptions (deprecated) has no effect" in x for x in a["warnings"])
    b = post(client, body([], queues() + [PODS, gpod("solo")]))
    assert not any("podOptions" in x for x in b["warnings"])


def _prebuilt_group_pods(gated: bool = True) -> list[dict[str, Any]]:
    out = []
    for name in ("pod1", "pod2"):
        p = base_pod(name, group="test-group", total="2", phase="Pending", gated=gated)
        p["metadata"]["labels"][PB_] = "prebuilt-workload"
        out.append(p)
    return out


def test_TestReconciler_when_the_prebuilt_workload_exists_its_owner_info_is_updated() -> None:
    """pod_controller_test.go TestReconciler (WorkloadIdentifierAnnotations off): the group's prebuilt Workload
    (podSet dc85db45 x2) is its own, not finished. (Upstream's pods are not gated: Kueue stops them, not modelled.)"""
    wl = make_wl("prebuilt-workload", [("dc85db45", 2, CPU)])
    [o] = reconcile(_prebuilt_group_pods(), [wl], id_annotations=False)
    assert o.existing == "ns/prebuilt-workload" and not o.drop and o.workload is None


def test_TestReconciler_when_the_prebuilt_workload_is_not_equivalent_to_the_job() -> None:
    """pod_controller_test.go TestReconciler: a podSet "main" where the group's role is dc85db45: Finished, OutOfSync."""
    wl = make_wl("prebuilt-workload", [("main", 2, CPU)], owners=[("pod1", False), ("pod2", False)])
    [o] = reconcile(_prebuilt_group_pods(), [wl], id_annotations=False)
    assert "OutOfSync" in o.drop["ns/prebuilt-workload"] and not o.existing and o.workload is None


def test_EquivalentToWorkload_a_prebuilt_workload_of_a_group_without_runnable_pods_is_in_sync() -> None:
    # pod_controller.go EquivalentToWorkload: constructGroupPodSets of no runnable pod is no podSet, which
    # equivalentToWorkload finds in any Workload: in sync, not finished (the group is not finished either)
    failed = _prebuilt_group_pods()
    for p in failed:
        p["status"] = {"phase": "Failed"}
    [o] = reconcile(failed, [make_wl("prebuilt-workload", [("dc85db45", 2, CPU)])], id_annotations=False)
    assert o.existing == "ns/prebuilt-workload" and not o.drop


def test_EquivalentToWorkload_fast_admission_errors_leave_the_prebuilt_workload_as_it_is() -> None:
    # constructGroupPodSetsFast's error (no runnable pod) and groupTotalCount's: ensurePrebuiltWorkloadInSync
    # returns the error, it does not finish the Workload
    for phase, total in (("Failed", "2"), ("Pending", "x")):
        group = _prebuilt_group_pods()
        for p in group:
            p["status"] = {"phase": phase}
            p["metadata"]["annotations"].update({"kueue.x-k8s.io/pod-group-fast-admission": "true",
                                                 "kueue.x-k8s.io/pod-group-total-count": total})  # fmt: skip
        [o] = reconcile(group, [make_wl("prebuilt-workload", [("dc85db45", 2, CPU)])], id_annotations=False)
        assert o.existing == "ns/prebuilt-workload" and not o.drop and any("fails" in x for x in o.unmodelled)


def test_a_pod_groups_prebuilt_workload_missing_means_no_workload() -> None:
    [o] = reconcile(_prebuilt_group_pods(), [], id_annotations=False)
    assert o.workload is None and "prebuilt Workload ns/prebuilt-workload is not in the snapshot" in o.note


def test_a_pod_groups_prebuilt_workload_controlled_by_another_object_is_ignored() -> None:
    wl = make_wl("prebuilt-workload", [("dc85db45", 2, CPU)], owners=[("other", True)])
    wl["metadata"]["ownerReferences"][0]["uid"] = "other-uid"
    [o] = reconcile(_prebuilt_group_pods(), [wl], id_annotations=False)
    assert not o.existing and not o.drop and "controlled by another object" in o.note


def test_Stop_ungated_pods_without_an_admitted_workload_are_named() -> None:
    """pod_controller.go Stop: pods not suspended (ungated, not terminated) whose Workload is not admitted get the
    TerminationTarget condition and are deleted (TestReconciler "when the prebuilt workload exists its owner info is
    updated": "Not admitted by cluster queue")."""
    wl = make_wl("prebuilt-workload", [("dc85db45", 2, CPU)])
    [o] = reconcile(_prebuilt_group_pods(gated=False), [wl], id_annotations=False)
    assert o.existing and any("Kueue stops it" in x for x in o.unmodelled)
    wl = make_wl("prebuilt-workload", [("dc85db45", 2, CPU)], admitted=True)
    [o] = reconcile(_prebuilt_group_pods(gated=False), [wl], id_annotations=False)
    assert o.existing and not any("Kueue stops it" in x for x in o.unmodelled)
    [o] = reconcile(_prebuilt_group_pods(gated=True), [wl], id_annotations=False)
    assert not any("Kueue stops it" in x for x in o.unmodelled)
    single = make_wl("w", [("main", 1, CPU)], owners=[("pod", True)])
    [o] = reconcile([base_pod(gated=False)], [single])
    assert o.existing == "ns/w" and any("Kueue stops it" in x for x in o.unmodelled)


def test_a_manifests_generated_role_hash_names_the_admission_plugins_not_applied(client):
    """The API server's Priority, DefaultTolerationSeconds, LimitRanger and RuntimeClass plugins run before Kueue's
    webhook; their Go is not in the Kueue mirror: a group manifest's generated role hash is named, a kept one is not."""
    p = gpod("new", uid="", labels={}, group="g", total=1)
    del p["metadata"]["labels"]["kueue.x-k8s.io/managed"]
    p["spec"]["schedulingGates"] = []
    a = answer(client, p)
    assert any("computed on the pod as posted" in x and "DefaultTolerationSeconds" in x for x in a["warnings"])
    p["metadata"]["annotations"][pods.ROLE_HASH_ANNOTATION] = "custom"
    assert not any("computed on the pod as posted" in x for x in answer(client, p)["warnings"])


def test_a_manifest_whose_owner_is_not_in_the_snapshot_is_named_not_refused(client):
    """FindAncestorJobManagedByKueue (jobframework/reconciler.go): a known controller owner that cannot be found is
    ErrWorkloadOwnerNotFound, which PodWebhook.Default returns (the pod is refused); the snapshot may lack an owner
    the cluster has, so the request is answered and the pod named. An ownerReference without controller: true is
    no owner (GetControllerOf): the pod is Kueue's."""
    p = gpod("new", uid="", labels={})
    del p["metadata"]["labels"]["kueue.x-k8s.io/managed"]
    p["spec"]["schedulingGates"] = []
    p["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "gone", "uid": "u1",
                                         "controller": True}]  # fmt: skip
    a = post(client, body([], queues() + [PODS, p, gpod("solo")]))
    assert [w["workload"] for w in a["workloads"]] == [pod_wl("solo", "uid-solo")]
    assert any("ml/new" in x and "owner Job ml/gone is not in the snapshot" in x and "refuses the pod's creation" in x
               for x in a["warnings"])  # fmt: skip
    del p["metadata"]["ownerReferences"][0]["controller"]
    a = post(client, body([], queues() + [PODS, p, gpod("solo")]))
    assert sorted(w["workload"] for w in a["workloads"]) == sorted([pod_wl("solo", "uid-solo"), pod_wl("new", "")])


def test_a_group_mixing_total_counts_is_named_with_kueues_message() -> None:
    [o] = reconcile([base_pod(group="g", total="2"), base_pod("pod2", group="g", total="3")])
    assert o.workload is None and "has different 'kueue.x-k8s.io/pod-group-total-count' values: 2!=3" in o.note


def _prebuilt_pod() -> dict[str, Any]:
    p = base_pod()
    p["metadata"]["labels"][PB_] = "pre"
    return p


def test_a_single_pods_prebuilt_workload_in_sync_is_its_own() -> None:
    """ensureOneWorkload's prebuilt path for a single pod (jobframework/reconciler.go): EquivalentToWorkload."""
    [o] = reconcile([_prebuilt_pod()], [make_wl("pre", [("main", 1, CPU)])])
    assert o.existing == "ns/pre" and not o.drop


def test_a_single_pods_prebuilt_workload_out_of_sync_is_finished() -> None:
    [o] = reconcile([_prebuilt_pod()], [make_wl("pre", [("main", 1, {"cpu": "2"})])])
    assert not o.existing and "OutOfSync" in o.drop["ns/pre"]


def test_a_single_pods_prebuilt_workload_controlled_by_another_object_is_ignored() -> None:
    wl = make_wl("pre", [("main", 1, CPU)], owners=[("other", True)])
    wl["metadata"]["ownerReferences"][0]["uid"] = "other-uid"
    [o] = reconcile([_prebuilt_pod()], [wl])
    assert not o.existing and not o.drop and "controlled by another object" in o.note


def test_WorkloadIdentifierAnnotations_off_the_webhook_reads_group_and_prebuilt_labels_only() -> None:
    """pod_webhook.go validatePodGroupMetadata / getGroupNamePath / validatePodGroupName and jobframework's
    ValidatePrebuiltWorkloadName with the gate off: the group name annotation is not read (a total count without
    the label is Required at the label), the prebuilt annotation is not validated (unless longer than 63)."""
    def errs(p: dict[str, Any]) -> list[str]:
        job = pods._job(pods.read_pod(p, "/objects/0", id_annotations=False))
        job.id_annotations = False
        return [e.pointer for e in pods.webhook_errors(job)]
    assert errs(make_pod({}, {GN: "g", TC: "3"})) == [at("labels", GN)]
    assert webhook(make_pod({}, {GN: "g", TC: "3"})) == []  # (gate on: the annotation names the group)
    assert errs(make_pod({}, {PB: "not a name"})) == []
    assert errs(make_pod({}, {PB: "x " * 40})) == [at("annotations", PB)]
