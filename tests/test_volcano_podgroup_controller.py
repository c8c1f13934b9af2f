"""Volcano's PodGroup controller for pods on their own (``app/ingest/pgcontroller.py``).

Transcribed from ``pkg/controllers/podgroup/pg_controller_test.go`` (each test names its Go
test and case), then one small test per rule, end to end through the decision where the
rule shows there. The controller's handler is ``pg_controller_handler.go``
(``createNormalPodPGIfNotExist``, ``buildPodGroupFromPod``, ``getAnnotationsFromUpperRes``,
``getMinMemberFromUpperRes``, ``inheritUpperAnnotations``, ``parseNetworkTopologyFromPod``)
and ``volcano.sh/apis`` ``helpers.GeneratePodgroupName``.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.compare import compare
from app.errors import InputError
from app.ingest.request import read_request
from app.model.cluster import Cluster, NetworkTopology
from app.service import decide_request
from app.settings import Settings
from tests.kube import node, pod, podgroup, queue, request

VOLCANO = {"profile": "volcano", "actions": "enqueue, allocate, preempt, reclaim"}
RS_UID = "7a09885b-b753-4924-9fba-77c0836bac20"
GPU = "nvidia.com/gpu"


def owned(kind: str, name: str, uid: str, *, controller: bool | None = True, api: str = "apps/v1") -> dict[str, Any]:
    ref: dict[str, Any] = {"apiVersion": api, "kind": kind, "name": name, "uid": uid}
    if controller is not None:
        ref["controller"] = controller
    return ref


def lone(name: str, *, owners: list[dict] | None = None, uid: str | None = "", scheduler: str = "volcano",
         **kw: Any) -> dict[str, Any]:  # fmt: skip
    """A pod on its own naming ``scheduler`` (uid: "" the helper's, None none)."""
    o = pod(name, extra_spec={"schedulerName": scheduler, **kw.pop("extra_spec", {})}, **kw)
    if owners is not None:
        o["metadata"]["ownerReferences"] = owners
    if uid is None:
        del o["metadata"]["uid"]
    elif uid:
        o["metadata"]["uid"] = uid
    return o


def workload(kind: str, name: str, uid: str, annotations: dict[str, str] | None = None, *, ns: str = "default",
             api: str = "apps/v1") -> dict[str, Any]:  # fmt: skip
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": ns, "uid": uid,
                                                          "annotations": annotations or {}}, "spec": {"replicas": 2}}  # fmt: skip


def body(objects: list[dict], config: Any = VOLCANO, **options: Any) -> dict[str, Any]:
    out = {**request(objects), "config": config}
    out["options"] = {**out["options"], **options}
    return orjson.loads(orjson.dumps(out))


def cluster(objects: list[dict], config: Any = VOLCANO, **options: Any) -> Cluster:
    return read_request(body(objects, config, **options), Settings()).cluster


def decide(objects: list[dict], config: Any = VOLCANO, **options: Any) -> dict[str, Any]:
    return decide_request(read_request(body(objects, config, **options), Settings())).wire()


def refused(objects: list[dict]) -> InputError:
    with pytest.raises(InputError) as e:
        cluster(objects)
    return e.value


# -- pg_controller_test.go: TestAddPodGroup ------------------------------------------------
def test_add_podgroup_pod_has_owner_references_and_priority_class_name() -> None:
    """TestAddPodGroup, "AddPodGroup: pod has ownerReferences and priorityClassName"."""
    c = cluster([node("n1"), lone("pod1", owners=[owned("ReplicaSet", "rs1", RS_UID)], priority_class="test-pc")])
    job = c.jobs[f"default/podgroup-{RS_UID}"]
    assert (job.min_available, job.priority_class) == (1, "test-pc")
    assert [t.annotations["scheduling.k8s.io/group-name"] for t in job.tasks] == [f"podgroup-{RS_UID}"]


def test_add_podgroup_pod_has_no_owner_references_or_priority_class_name() -> None:
    """TestAddPodGroup, "AddPodGroup: pod has no ownerReferences or priorityClassName"."""
    c = cluster([node("n1"), lone("pod1", uid=RS_UID)])
    job = c.jobs[f"default/podgroup-{RS_UID}"]
    assert (job.min_available, job.priority_class, [t.name for t in job.tasks]) == (1, "", ["pod1"])


def test_add_podgroup_pod_owners_with_group_min_member_annotation() -> None:
    """TestAddPodGroup, "AddPodGroup: pod owners with group-min-member annotation": two pods
    of ReplicaSet rs1 (group-min-member 2), one GPU each: one PodGroup, minMember 2,
    minResources 2 GPUs."""
    rs = workload("ReplicaSet", "rs1", RS_UID, {"scheduling.volcano.sh/group-min-member": "2"})
    pods = [lone(n, owners=[owned("ReplicaSet", "rs1", RS_UID)], cpu=None, memory=None, gpu=1) for n in ("pod1", "pod2")]
    c = cluster([node("n1"), rs, *pods])
    job = c.jobs[f"default/podgroup-{RS_UID}"]
    assert job.min_available == 2 and job.min_resources is not None and job.min_resources[GPU] == 2000
    assert sorted(t.name for t in job.tasks) == ["pod1", "pod2"]


# -- Test_pgcontroller_buildPodGroupFromPod ----------------------------------------------
def test_build_podgroup_from_pod_scenario_1() -> None:
    """Test_pgcontroller_buildPodGroupFromPod, "Scenario 1: Do not inherit upper resource
    annotations" (no owners: inheriting or not gives the same PodGroup; Gangplank models
    ``--inherit-owner-annotations``' default, true)."""
    p = lone("test-pod", ns="test-ns", uid="test-pod-uid", priority_class="high-priority", cpu="1", memory=None,
             annotations={"scheduling.volcano.sh/queue-name": "test-queue", "volcano.sh/preemptable": "true"},
             labels={"volcano.sh/cooldown-time": "60s"})  # fmt: skip
    c = cluster([node("n1"), queue("test-queue"), p])
    job = c.jobs["test-ns/podgroup-test-pod-uid"]
    assert (job.min_available, job.priority_class, job.queue) == (1, "high-priority", "test-queue")
    assert job.min_resources is not None and job.min_resources["cpu"] == 1000
    assert job.annotations == {"volcano.sh/preemptable": "true"} and job.preemptable is True


def test_build_podgroup_from_pod_scenario_2() -> None:
    """Test_pgcontroller_buildPodGroupFromPod, "Scenario 2: Inherit upper resource
    annotations": minMember 3 from the ReplicaSet, its ``volcano.sh/custom-key``, the pod's
    jdb-min-available over the owner's, minResources 3 CPUs."""
    rs = workload("ReplicaSet", "rs-owner", "owner-uid", {"scheduling.volcano.sh/group-min-member": "3",
                  "volcano.sh/custom-key": "custom-value", "volcano.sh/jdb-min-available": "2"}, ns="test-ns")  # fmt: skip
    p = lone("test-pod", ns="test-ns", uid="test-pod-uid", owners=[owned("ReplicaSet", "rs-owner", "owner-uid")],
             priority_class="low-priority", cpu="1", memory=None, annotations={"volcano.sh/jdb-min-available": "1"})  # fmt: skip
    job = cluster([node("n1"), rs, p]).jobs["test-ns/podgroup-owner-uid"]
    assert job.min_available == 3 and job.min_resources is not None and job.min_resources["cpu"] == 3000
    assert job.annotations == {"volcano.sh/custom-key": "custom-value", "volcano.sh/jdb-min-available": "1"}


def test_build_podgroup_from_pod_scenario_3() -> None:
    """Test_pgcontroller_buildPodGroupFromPod, "Scenario 3: Inherit upper annotations with
    JDBMaxUnavailable"."""
    rs = workload("ReplicaSet", "rs-owner-3", "owner-uid-3", {"scheduling.volcano.sh/group-min-member": "3",
                  "volcano.sh/jdb-max-unavailable": "20%"}, ns="test-ns")  # fmt: skip
    p = lone("test-pod-3", ns="test-ns", uid="pod-uid-3", owners=[owned("ReplicaSet", "rs-owner-3", "owner-uid-3")])
    job = cluster([node("n1"), rs, p]).jobs["test-ns/podgroup-owner-uid-3"]
    assert job.annotations == {"volcano.sh/jdb-max-unavailable": "20%"}


# -- TestBuildPodGroupFromPodWithNetworkTopology ---------------------------------------------
@pytest.mark.parametrize(("annotations", "expected"), [
    ({"volcano.sh/network-topology-mode": "hard", "volcano.sh/network-topology-highest-tier": "2"}, NetworkTopology("hard", 2)),
    ({"volcano.sh/network-topology-mode": "soft"}, NetworkTopology("soft", None)),
    ({"volcano.sh/network-topology-highest-tier": "1"}, NetworkTopology("hard", 1)),
    ({}, None),
    ({"volcano.sh/network-topology-mode": "invalid", "volcano.sh/network-topology-highest-tier": "3"}, NetworkTopology("hard", 3)),
], ids=["hard mode with tier", "soft mode only", "tier annotation only - should default to hard mode",
        "without NetworkTopology annotations", "invalid mode annotation - should default to hard"])  # fmt: skip
def test_build_podgroup_from_pod_with_network_topology(annotations: dict[str, str], expected: NetworkTopology | None) -> None:
    """TestBuildPodGroupFromPodWithNetworkTopology, each case ("Pod with NetworkTopology
    annotations - hard mode with tier", ...)."""
    job = cluster([node("n1"), lone("test-pod", ns="test", annotations=annotations)]).jobs["test/podgroup-uid-test-test-pod"]
    assert job.network_topology == expected


# -- TestNoPodGroupCreatedForWhenKubeGroupNameAnnotationExists --------------------------------
def test_no_podgroup_created_when_kube_group_name_annotation_exists() -> None:
    """TestNoPodGroupCreatedForWhenKubeGroupNameAnnotationExists, "Replicaset shall not
    create new podgroup" (and the StatefulSet case: the same pod handler): the pod names
    existing-pg, so one PodGroup only."""
    objs = [node("n1"), podgroup("existing-pg", ns="test"), workload("ReplicaSet", "rs1", "rs-uid-123", ns="test"),
            lone("rs-pod-with-pg-annotation", ns="test", group="existing-pg", owners=[owned("ReplicaSet", "rs1", "rs-uid-123")])]  # fmt: skip
    c = cluster(objs)
    assert list(c.jobs) == ["test/existing-pg"]
    assert not any("PodGroup controller made" in w for w in c.warnings)


# -- Test_createOrUpdateNormalPodPG ---------------------------------------------------------
def test_create_or_update_normal_pod_pg_scenario_1() -> None:
    """Test_createOrUpdateNormalPodPG, "Scenario 1: Create normal pod group": StatefulSet sts1
    (group-min-member 2), a pod of one GPU: minMember 2, minResources 2 GPUs."""
    sts = workload("StatefulSet", "sts1", RS_UID, {"scheduling.volcano.sh/group-min-member": "2"}, ns="test")
    p = lone("pod1", ns="test", owners=[owned("StatefulSet", "sts1", RS_UID, api="app/v1")], cpu=None, memory=None, gpu=1)
    job = cluster([node("n1"), sts, p]).jobs[f"test/podgroup-{RS_UID}"]
    assert job.min_available == 2 and job.min_resources is not None and job.min_resources[GPU] == 2000


def test_create_or_update_normal_pod_pg_scenario_2_is_the_statefulset_handlers() -> None:
    """Test_createOrUpdateNormalPodPG, "Scenario 2: Update normal pod group": the update is
    the StatefulSet handler's (``addStatefulSet``, not modelled); the pod handler
    (``createNormalPodPGIfNotExist``) leaves the existing PodGroup as it is: minMember 3."""
    sts = workload("StatefulSet", "sts1", RS_UID, {"scheduling.volcano.sh/group-min-member": "2"}, ns="test")
    p = lone("pod1", ns="test", owners=[owned("StatefulSet", "sts1", RS_UID, api="app/v1")], cpu=None, memory=None, gpu=1)
    c = cluster([node("n1"), sts, podgroup(f"podgroup-{RS_UID}", ns="test", min_member=3), p])
    job = c.jobs[f"test/podgroup-{RS_UID}"]
    assert job.min_available == 3 and [t.name for t in job.tasks] == ["pod1"]


# -- one test per rule ---------------------------------------------------------------------
def test_rule_enqueue_must_admit_the_podgroup_the_controller_makes() -> None:
    """Queue q may hold 2 CPUs and holds 2 (a Running PodGroup, minResources 2 CPUs: nothing
    elastic); a Pending 1-CPU pod on its own in q gets a Pending PodGroup (minResources 1
    CPU), which enqueue refuses (proportion: 2 + 1 > 2): not bound, not admitted."""
    held = podgroup("held", queue="q", phase="Running")
    held["spec"]["minResources"] = {"cpu": "2"}
    objs = [node("n1", cpu="8"), queue("q", capability={"cpu": "2"}), held, pod("h", node="n1", cpu="2", group="held"),
            lone("want", annotations={"scheduling.volcano.sh/queue-name": "q"})]  # fmt: skip
    out = decide(objs)
    assert out["bindings"] == []
    state = next(j for j in out["jobs"] if j["job"] == "default/podgroup-uid-default-want")
    assert state["state"] == "Pending" and "not admitted" in state["message"]


def test_rule_a_pending_podgroup_that_fits_is_admitted_and_placed() -> None:
    out = decide([node("n1"), lone("a")])
    assert [(b["pod"], b["node"]) for b in out["bindings"]] == [("default/a", "n1")]
    assert any(w.startswith("Volcano's PodGroup controller made 1 PodGroup(s) for 1 pod(s)") for w in out["warnings"])


def test_rule_two_pods_of_one_replicaset_share_one_podgroup() -> None:
    """Named by the controller owner's uid (GeneratePodgroupName); built from the first
    created pod (here b, created earlier: its priorityClassName)."""
    ref = [owned("ReplicaSet", "web-abc", "rs-uid")]
    objs = [node("n1"), lone("a", owners=ref, created="2026-11-23T10:00:05Z"),
            lone("b", owners=ref, priority_class="first", created="2026-11-23T10:00:00Z")]  # fmt: skip
    c = cluster(objs)
    job = c.jobs["default/podgroup-rs-uid"]
    assert sorted(t.name for t in job.tasks) == ["a", "b"] and job.priority_class == "first"
    assert job.created == c.tasks[[t.name for t in c.tasks].index("b")].created


def test_rule_only_the_controller_owner_names_the_podgroup() -> None:
    """An owner without ``controller: true`` does not name it: the pod's uid does."""
    c = cluster([node("n1"), lone("a", owners=[owned("ReplicaSet", "rs", "rs-uid", controller=None)])])
    assert list(c.jobs) == ["default/podgroup-uid-default-a"]


def test_rule_a_pod_joins_an_existing_podgroup_of_that_name_unchanged() -> None:
    """createNormalPodPGIfNotExist does not update a PodGroup that exists: its queue,
    minMember and phase (Inqueue) stay; the pod is placed in it."""
    objs = [node("n1"), queue("q"), podgroup("podgroup-uid-default-a", queue="q", min_member=1), lone("a", cpu="3")]
    out = decide(objs)
    assert [b["pod"] for b in out["bindings"]] == ["default/a"]
    c = cluster(objs)
    assert c.jobs["default/podgroup-uid-default-a"].queue == "q"
    assert any("the pods join them, unchanged" in w for w in out["warnings"])


def test_rule_a_pod_without_a_uid_names_its_podgroup_by_namespace_and_name() -> None:
    c = cluster([node("n1"), lone("a", ns="ml", uid=None)])
    assert list(c.jobs) == ["ml/podgroup-ml-a"]
    assert any("have no metadata.uid" in w and "podgroup-<namespace>-<name>" in w for w in c.warnings)


def test_rule_the_podgroup_is_created_with_its_first_pod_else_at_options_now() -> None:
    c = cluster([node("n1"), lone("a", created="2026-11-23T08:00:00Z")])
    assert c.jobs["default/podgroup-uid-default-a"].created == c.tasks[0].created
    o = lone("b")
    del o["metadata"]["creationTimestamp"]
    c = cluster([node("n1"), o], now="2026-11-23T12:00:00Z")
    assert c.jobs["default/podgroup-uid-default-b"].created == 1795428000.0 + 2 * 3600


def test_rule_phase_pending_until_a_pod_was_scheduled() -> None:
    """A Running pod's PodGroup left Pending before it was bound, and the scheduler's status
    update keeps it Running (getPodGroupPhase); fewer than minMember scheduled: Pending
    (getPodGroupPhase keeps Inqueue only for a PodGroup already Inqueue), so enqueue must
    admit it again."""
    rs = workload("ReplicaSet", "rs", "rs-uid", {"scheduling.volcano.sh/group-min-member": "3"})
    ref = [owned("ReplicaSet", "rs", "rs-uid")]
    c = cluster([node("n1"), lone("p"), lone("r", node="n1"), rs, lone("x", owners=ref, node="n1"), lone("y", owners=ref)])
    assert c.jobs["default/podgroup-uid-default-p"].phase == "Pending"
    assert c.jobs["default/podgroup-uid-default-r"].phase == "Running"
    assert c.jobs["default/podgroup-rs-uid"].phase == "Pending"
    c = cluster([node("n1"), lone("s", node="n1", phase="Succeeded")])
    job = c.jobs["default/podgroup-uid-default-s"]
    assert job.phase == "Completed" and job.min_resources == {"count/pods": 1000}  # PodUsageFunc: a terminal pod


def test_rule_min_member_from_owner_annotation_as_go_parses_it() -> None:
    """ParseInt(base 10, 32 bits); an error or a negative value: 1; 0 is kept."""
    for raw, want in [("2", 2), ("+2", 2), ("0", 0), ("-1", 1), (" 2", 1), ("2_0", 1), ("x", 1), ("2147483648", 1)]:
        rs = workload("DaemonSet", "ds", "ds-uid", {"scheduling.volcano.sh/group-min-member": raw})
        c = cluster([node("n1"), rs, lone("a", owners=[owned("DaemonSet", "ds", "ds-uid")])])
        assert c.jobs["default/podgroup-ds-uid"].min_available == want, raw


def test_rule_owner_annotations_from_every_owner_the_first_winning() -> None:
    """getAnnotationsFromUpperRes walks every ownerReference (controller or not) with a kind
    and a name, looks it up by kind (a batch Job too) and name; the first value of a key
    wins; an owner the snapshot lacks adds nothing; only ``volcano.sh/`` keys are inherited."""
    job_owner = workload("Job", "j", "j-uid", {"volcano.sh/a": "from-job", "other/b": "x"}, api="batch/v1")
    sts = workload("StatefulSet", "s", "s-uid", {"volcano.sh/a": "from-sts", "volcano.sh/c": "c"})
    refs = [owned("ReplicaSet", "missing", "m-uid", controller=False), owned("Job", "j", "j-uid", api="batch/v1"),
            owned("StatefulSet", "s", "s-uid", controller=False)]  # fmt: skip
    c = cluster([node("n1"), job_owner, sts, lone("a", owners=refs)])
    assert c.jobs["default/podgroup-j-uid"].annotations == {"volcano.sh/a": "from-job", "volcano.sh/c": "c"}
    assert any(w.startswith("owner objects read only for their annotations") and "apps/v1 StatefulSet (1)" in w
               and "batch/v1 Job (1)" in w for w in c.warnings)  # fmt: skip
    assert not any(w.startswith("ignored objects") for w in c.warnings)


def test_rule_owner_objects_no_pod_reads_stay_ignored() -> None:
    c = cluster([node("n1"), workload("ReplicaSet", "rs", "rs-uid"), lone("a")])
    assert "ignored objects of kinds the engine does not use: apps/v1 ReplicaSet (1)" in c.warnings


def test_rule_queue_annotation_else_default_and_a_missing_queue_leaves_the_job_out() -> None:
    assert cluster([node("n1"), lone("a")]).jobs["default/podgroup-uid-default-a"].queue == "default"
    c = cluster([node("n1"), lone("a", annotations={"scheduling.volcano.sh/queue-name": "nope"})])
    assert c.jobs["default/podgroup-uid-default-a"].queue == "nope" and c.missing_queues == {"nope"}


def test_rule_which_pods_volcanos_names_only_and_kubernetes_pods_only() -> None:
    """A pod naming no scheduler (Kubernetes would give it default-scheduler) or another
    scheduler gets none; options.schedulerNames names Volcano's names; the native form's
    pods on their own keep Gangplank's meaning."""
    c = cluster([node("n1"), lone("none", scheduler=""), lone("other", scheduler="default-scheduler"), lone("v")])
    assert sorted(c.jobs) == ["default/none", "default/other", "default/podgroup-uid-default-v"]
    c = cluster([node("n1"), lone("mine", scheduler="my-volcano"), lone("v")], schedulerNames=["my-volcano"])
    assert sorted(c.jobs) == ["default/podgroup-uid-default-mine", "default/v"]
    native = {"nodes": [{"name": "n1", "allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}],
              "pods": [{"name": "p", "request": {"cpu": "1"}}]}  # fmt: skip
    c = read_request({"cluster": native, "config": VOLCANO}, Settings()).cluster
    assert list(c.jobs) == ["default/p"]


@pytest.mark.parametrize("config", [None, {"profile": "gangplank"}, {"profile": "kai"}])
def test_rule_other_profiles_keep_pods_on_their_own(config: Any) -> None:
    c = cluster([node("n1"), lone("a"), workload("ReplicaSet", "rs", "rs-uid")], config)
    assert list(c.jobs) == ["default/a"] and not any("PodGroup controller" in w for w in c.warnings)


def test_rule_a_volcano_scheduler_conf_runs_the_controller() -> None:
    conf = "actions: enqueue, allocate\ntiers:\n- plugins:\n  - name: gang\n  - name: proportion\n"
    assert list(cluster([node("n1"), lone("a")], conf).jobs) == ["default/podgroup-uid-default-a"]


def test_rule_compare_reads_the_snapshot_per_profile() -> None:
    """/v1/compare shares one reading of the snapshot between variants: one per whether the
    controller runs."""
    env = orjson.loads(orjson.dumps({**request([node("n1"), lone("a")]), "variants": [
        {"name": "g", "config": {"profile": "gangplank"}}, {"name": "v", "config": VOLCANO}]}))  # fmt: skip
    out = compare(env, Settings())
    jobs = {v["name"]: [j["job"] for j in v["decision"]["jobs"]] for v in out["variants"]}
    assert jobs == {"g": ["default/a"], "v": ["default/podgroup-uid-default-a"]}


@pytest.mark.parametrize(("owners", "pointer"), [
    ("x", "/objects/1/metadata/ownerReferences"),
    (["x"], "/objects/1/metadata/ownerReferences/0"),
    ([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs"}], "/objects/1/metadata/ownerReferences/0/uid"),
    ([{"apiVersion": "apps/v1", "kind": "", "name": "rs", "uid": "u"}], "/objects/1/metadata/ownerReferences/0/kind"),
    ([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u", "controller": "yes"}],
     "/objects/1/metadata/ownerReferences/0/controller"),
    ([owned("ReplicaSet", "a", "1"), owned("ReplicaSet", "b", "2")], "/objects/1/metadata/ownerReferences/1/controller"),
])  # fmt: skip
def test_rule_malformed_owner_references_are_a_422_at_the_field(owners: Any, pointer: str) -> None:
    """What the API server's ValidateOwnerReferences refuses never reaches the controller."""
    assert refused([node("n1"), lone("a", owners=owners)]).pointer == pointer


def test_rule_malformed_owner_annotations_are_a_422_at_the_field() -> None:
    rs = workload("ReplicaSet", "rs", "rs-uid")
    rs["metadata"]["annotations"] = {"volcano.sh/a": 3}
    e = refused([node("n1"), lone("a", owners=[owned("ReplicaSet", "rs", "rs-uid")]), rs])
    assert e.pointer.startswith("/objects/2/metadata/annotations")


def test_rule_network_topology_annotations_as_go_parses_them() -> None:
    """Mode case-insensitive; a tier Atoi refuses is unset; a tier alone is hard."""
    c = cluster([node("n1"), lone("a", annotations={"volcano.sh/network-topology-mode": "SOFT",
                                                      "volcano.sh/network-topology-highest-tier": "two"}),
                 lone("b", annotations={"volcano.sh/network-topology-highest-tier": "+2"})])  # fmt: skip
    assert c.jobs["default/podgroup-uid-default-a"].network_topology == NetworkTopology("soft", None)
    assert c.jobs["default/podgroup-uid-default-b"].network_topology == NetworkTopology("hard", 2)


NEGATIVE_TIER = {"volcano.sh/network-topology-highest-tier": "-1"}


def test_rule_negative_tier_leaves_only_that_pod_without_a_podgroup() -> None:
    """A negative tier (Atoi takes the sign) gives the PodGroup a highestTierAllowed the CRD
    refuses (minimum 0): createNormalPodPGIfNotExist's Create fails, the pod is never
    annotated, and Volcano's scheduler holds no job for it: it stays Pending with the
    reason, the rest of the snapshot is decided (not a 422)."""
    out = decide([node("n1", cpu="2"), lone("a", annotations=NEGATIVE_TIER), lone("b")])
    assert [b["pod"] for b in out["bindings"]] == ["default/b"]
    jobs = {j["job"]: j for j in out["jobs"]}
    assert jobs["default/a"]["state"] == "Pending"
    assert "cannot create its PodGroup" in jobs["default/a"]["message"]
    assert "default/podgroup-uid-default-a" not in jobs
    assert any("negative volcano.sh/network-topology-highest-tier" in w and "default/a: -1" in w for w in out["warnings"])
    assert not any("name another scheduler" in w for w in out["warnings"])  # (it names volcano: not said otherwise)


def test_rule_negative_tier_pod_joins_the_podgroup_another_pod_of_its_owner_built() -> None:
    """Pods of one owner share a PodGroup name: when the first pod's Create is refused, the
    next pod's builds it, and the refused pod's retried reconcile finds it and joins
    (``updatePodAnnotations``): both are its pods, the PodGroup built from the second."""
    ref = [owned("ReplicaSet", "rs1", RS_UID)]
    out = decide([node("n1"), lone("a", owners=ref, annotations=NEGATIVE_TIER, created="2026-11-23T10:00:00Z"),
                  lone("b", owners=ref, created="2026-11-23T10:00:05Z")])  # fmt: skip
    assert sorted(b["pod"] for b in out["bindings"]) == ["default/a", "default/b"]
    assert {b["job"] for b in out["bindings"]} == {f"default/podgroup-{RS_UID}"}
    c = cluster([node("n1"), lone("a", owners=ref, annotations=NEGATIVE_TIER, created="2026-11-23T10:00:00Z"),
                 lone("b", owners=ref, created="2026-11-23T10:00:05Z")])  # fmt: skip
    job = c.jobs[f"default/podgroup-{RS_UID}"]
    assert job.network_topology is None  # (b's annotations built it)
    assert job.created == c.tasks[[t.name for t in c.tasks].index("b")].created


def test_rule_negative_tier_on_every_pod_of_an_owner_makes_no_podgroup() -> None:
    ref = [owned("ReplicaSet", "rs1", RS_UID)]
    out = decide([node("n1"), lone("a", owners=ref, annotations=NEGATIVE_TIER),
                  lone("b", owners=ref, annotations={"volcano.sh/network-topology-highest-tier": "-3"})])  # fmt: skip
    assert out["bindings"] == []
    assert {j["job"] for j in out["jobs"]} == {"default/a", "default/b"}
    assert any("2 pod(s) (those whose PodGroup" in w for w in out["warnings"])


def test_rule_negative_tier_pod_on_a_node_still_holds_what_it_uses() -> None:
    """A running pod left without a PodGroup is in no job, but its node counts it (Volcano's
    cache adds every pod on a node to it): the pending pod does not fit beside it."""
    out = decide([node("n1", cpu="2"), lone("a", node="n1", cpu="2", annotations=NEGATIVE_TIER), lone("b", cpu="1")])
    assert out["bindings"] == [] and out["evictions"] == []
    assert not any("name another scheduler" in w for w in out["warnings"])


def test_rule_pod_annotations_and_labels_copied_as_the_controller_copies_them() -> None:
    """preemptable, cooldown-time, revocable-zone annotations; the preemptable label (read
    when no annotation says); jdb-min-available before jdb-max-unavailable; nothing else."""
    ann = {"volcano.sh/revocable-zone": "*", "volcano.sh/cooldown-time": "60s", "volcano.sh/jdb-min-available": "1",
           "volcano.sh/jdb-max-unavailable": "1", "volcano.sh/other": "x"}  # fmt: skip
    c = cluster([node("n1"), lone("a", annotations=ann, labels={"volcano.sh/preemptable": "false"})])
    job = c.jobs["default/podgroup-uid-default-a"]
    assert job.annotations == {"volcano.sh/revocable-zone": "*", "volcano.sh/cooldown-time": "60s",
                               "volcano.sh/jdb-min-available": "1"}  # fmt: skip
    assert job.preemptable is False


def test_rule_a_gang_of_another_api_naming_volcano_is_named_not_modelled() -> None:
    objs = [node("n1"), lone("a", labels={"scheduling.x-k8s.io/pod-group": "sp"}),
            {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "sp", "namespace": "default"},
             "spec": {"minMember": 1}}]  # fmt: skip
    c = cluster(objs)
    assert "default/sp" in c.jobs and any("gangs of another API" in w for w in c.warnings)


# -- found in review -------------------------------------------------------------------------
def test_below_min_member_after_a_restart_waits_for_enqueue_again() -> None:
    """A StatefulSet of minMember 2 with one pod running and one pending on a node with 2 of
    8 CPU left after another pod's 4: its PodGroup is Pending (not Inqueue), and enqueue does
    not admit its 4 CPU of minResources, so nothing is bound (Volcano's getPodGroupPhase)."""
    sts = workload("StatefulSet", "s", "s-uid", {"scheduling.volcano.sh/group-min-member": "2"})
    ref = [owned("StatefulSet", "s", "s-uid")]
    objs = [node("n1", cpu="8"), lone("other", node="n1", cpu="4"), sts,
            lone("s-0", owners=ref, node="n1", cpu="2"), lone("s-1", owners=ref, cpu="2")]  # fmt: skip
    assert decide(objs)["bindings"] == []


def test_an_owners_network_topology_annotations_are_not_the_podgroups() -> None:
    """parseNetworkTopologyFromPod reads the pod's annotations only; the scheduler reads the
    PodGroup's spec, never its inherited annotations."""
    rs = workload("ReplicaSet", "rs", "rs-uid", {"volcano.sh/network-topology-mode": "hard",
                                                 "volcano.sh/network-topology-highest-tier": "1"})  # fmt: skip
    c = cluster([node("n1"), rs, lone("a", owners=[owned("ReplicaSet", "rs", "rs-uid")])])
    assert c.jobs["default/podgroup-rs-uid"].network_topology is None


def test_the_first_pod_by_name_builds_the_podgroup_when_created_together() -> None:
    """Two pods of one owner created in the same second: the first by name builds the
    PodGroup (queue, class), whatever their order in the snapshot."""
    ref = [owned("ReplicaSet", "rs", "rs-uid")]
    a = lone("a", owners=ref, annotations={"scheduling.volcano.sh/queue-name": "qa"})
    b = lone("b", owners=ref, annotations={"scheduling.volcano.sh/queue-name": "qb"})
    for objs in ([a, b], [b, a]):
        c = cluster([node("n1"), queue("qa"), queue("qb"), workload("ReplicaSet", "rs", "rs-uid"), *objs])
        assert c.jobs["default/podgroup-rs-uid"].queue == "qa"


def test_a_duplicate_owner_object_is_a_422() -> None:
    rs1 = workload("ReplicaSet", "rs", "rs-uid", {"scheduling.volcano.sh/group-min-member": "2"})
    rs2 = workload("ReplicaSet", "rs", "rs-uid", {"scheduling.volcano.sh/group-min-member": "3"})
    e = refused([node("n1"), rs1, rs2, lone("a", owners=[owned("ReplicaSet", "rs", "rs-uid")])])
    assert e.pointer.endswith("/metadata/name") and "duplicate ReplicaSet default/rs" in e.detail


@pytest.mark.parametrize("ann", [{"volcano.sh/network-topology-highest-tier": "9" * 5000},
                                 {"volcano.sh/network-topology-mode": "hard", "volcano.sh/network-topology-highest-tier": "\u00b2"}])  # fmt: skip
def test_odd_tier_annotations_are_no_tier_not_a_500(ann) -> None:
    c = cluster([node("n1"), lone("a", annotations=ann)])
    assert c.jobs["default/podgroup-uid-default-a"].network_topology.highest_tier_allowed is None


def test_a_huge_min_member_is_no_member_count_not_a_500() -> None:
    rs = workload("ReplicaSet", "rs", "rs-uid", {"scheduling.volcano.sh/group-min-member": "9" * 5000})
    c = cluster([node("n1"), rs, lone("a", owners=[owned("ReplicaSet", "rs", "rs-uid")])])
    assert c.jobs["default/podgroup-rs-uid"].min_available == 1  # (ParseInt errs: 1)


@pytest.mark.parametrize(("members", "memory"), [("2147483647", "8Ei"), ("2", "9223372036854775807")])
def test_min_resources_past_a_quantity_is_a_422_at_the_owners_annotation(members: str, memory: str) -> None:
    """(The second found by make fuzz-decide: 2 × 2^63-1 bytes reached an int64 column.)"""
    rs = workload("ReplicaSet", "rs", "rs-uid", {"scheduling.volcano.sh/group-min-member": members})
    e = refused([node("n1"), rs, lone("a", owners=[owned("ReplicaSet", "rs", "rs-uid")], memory=memory)])
    assert e.pointer.endswith("/metadata/annotations/scheduling.volcano.sh~1group-min-member")


def test_an_evicted_bare_pod_is_gone_in_simulate(client) -> None:
    """A pod with no controller owner is not made again once deleted: its controller-made
    PodGroup's pod stays gone across /v1/simulate cycles."""
    from tests.kube import priority_class

    objs = [node("n1", cpu="4"), priority_class("low", 1), priority_class("high", 1000),
            lone("victim", node="n1", cpu="4", extra_spec={"priorityClassName": "low"}),
            podgroup("hi", min_member=1, phase="Inqueue", priority_class="high"),
            pod("hi-0", group="hi", cpu="4", extra_spec={"schedulerName": "volcano", "priorityClassName": "high"})]  # fmt: skip
    b = body(objs, {"profile": "volcano", "actions": "enqueue, allocate, preempt"}) | {"cycles": 3}
    r = client.post("/v1/simulate", json=b)
    assert r.status_code == 200, r.text
    phases = {p["pod"]: p["phase"] for p in r.json()["final"]["pods"]}
    assert phases["default/victim"] == "Deleted" and phases["default/hi-0"] == "Running", phases
    assert r.json()["metrics"]["gangsBroken"] == 0, r.json()["metrics"]
