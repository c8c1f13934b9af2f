"""KAI's pod-grouper, ray.io RayCluster, RayJob and RayService (``ray_grouper.go``,
``raycluster_grouper.go``, ``rayjob_grouper.go``, ``rayservice_grouper.go``): the Go test
table transcribed (each test names its Go test function) and run end to end through the
service with the default ``kai`` profile (a pod → its RayCluster → the RayJob or
RayService), then one test per rule."""

from __future__ import annotations

import copy

import pytest

from app.errors import InputError
from app.ingest import kaigrouper as kg
from tests.kube import node, pod
from tests.test_kai import kai_queue
from tests.test_kai_podgrouper import KAI_SCHED, _read, decide, decide_in_any_order, jobs, made_podgroups

RG = "pkg/podgrouper/podgrouper/plugins/ray/ray_grouper_test.go"
NS = "test-namespace"
BASE = [node("a", gpu=8), node("b", gpu=8), kai_queue("q", -1)]
TEST_META = {"labels": {"test_label": "test_value"}, "annotations": {"test_annotation": "test_value"}}


def cluster(workers: list, *, name: str = "test-ray-cluster", uid: str = "1", version: str = "v1alpha1", head=None,
            labels=None, owner: dict | None = None, **spec) -> dict:  # fmt: skip
    """A RayCluster as Go's fixtures (``headGroupSpec`` {} unless given)."""
    meta = {"name": name, "namespace": NS, "uid": uid, "labels": {**TEST_META["labels"], **(labels or {})},
            "annotations": dict(TEST_META["annotations"])}  # fmt: skip
    if owner is not None:
        meta["ownerReferences"] = [_ref(owner)]
    return {"apiVersion": f"ray.io/{version}", "kind": "RayCluster", "metadata": meta,
            "spec": {"headGroupSpec": {} if head is None else head, "workerGroupSpecs": workers, **spec}}  # fmt: skip


def top(kind: str, status: dict, *, version: str = "v1alpha1", name: str = "test-name", uid: str = "1") -> dict:
    meta = {"name": name, "namespace": NS, "uid": uid, **copy.deepcopy(TEST_META)}
    return {"apiVersion": f"ray.io/{version}", "kind": kind, "metadata": meta, "spec": {}, "status": status}


def _ref(o: dict) -> dict:
    m = o["metadata"]
    return {"apiVersion": o["apiVersion"], "kind": o["kind"], "name": m["name"], "uid": m["uid"], "controller": True}


def raypod(name: str, owner: dict, group: str | None = None, *, created: str = "2026-11-23T10:00:00Z") -> dict:
    p = pod(name, ns=NS, gpu=1, labels={kg.QUEUE_LABEL: "q", **({kg.RAY_GROUP_LABEL: group} if group else {})},
            extra_spec=KAI_SCHED, created=created)  # fmt: skip
    p["metadata"]["ownerReferences"] = [_ref(owner)]
    return p


AUTOSCALING = [{"replicas": 3, "minReplicas": 2}, {"replicas": 3, "minReplicas": 1}]
SUSPENDED = [{"replicas": 3, "minReplicas": 2}, {"suspended": True, "replicas": 3, "minReplicas": 1}]
NUM_OF_HOSTS = [{"numOfHosts": 2, "replicas": 3, "minReplicas": 2}, {"numOfHosts": 3, "replicas": 3, "minReplicas": 1}]
NAMED = [{"groupName": "gpu-workers", "replicas": 3, "minReplicas": 2}, {"groupName": "cpu-workers", "replicas": 3, "minReplicas": 1}]


def made(objs: list[dict], monkeypatch) -> tuple[dict[str, dict], dict[str, str | None]]:
    return made_podgroups([*BASE, *objs], monkeypatch)


def one(objs: list[dict], monkeypatch) -> dict:
    pgs, _ = made(objs, monkeypatch)
    (pg,) = pgs.values()
    return pg


def sgs(pg: dict) -> list[tuple]:
    return [(sg["name"], sg.get("minMember", 0), sg.get("topologyConstraint")) for sg in pg["spec"].get("subGroups", [])]


def refused(objs: list[dict]) -> InputError:
    with pytest.raises(InputError) as e:
        _read([*BASE, *objs])
    return e.value


# -- ray_grouper_test.go ----------------------------------------------------------------------------
@pytest.mark.parametrize(("case", "workers", "labels", "priority", "minimum"), [
    ("TestGetPodGroupMetadata_RayCluster", AUTOSCALING, {}, "train", 4),
    ("TestGetPodGroupMetadata_RayCluster_NonAutoScaling", AUTOSCALING,
     {kg.RAY_PRIORITY_LABEL: "ray_train_priority_class"}, "ray_train_priority_class", 4),
    ("TestGetPodGroupMetadata_RayCluster_SuspendedWorkers", SUSPENDED, {}, "train", 3),
    ("TestGetPodGroupMetadata_RayCluster_NumOfHosts", NUM_OF_HOSTS, {}, "train", 8),
])  # fmt: skip
def test_ray_cluster_metadata(case: str, workers: list, labels: dict, priority: str, minimum: int, monkeypatch) -> None:
    """The four RayCluster cases (the autoscaling one's enableInTreeAutoscaling changes
    nothing; the top-owner-metadata annotation is left out here, so 1 annotation where Go
    counts 2)."""
    c = cluster(copy.deepcopy(workers), labels=labels, **({"enableInTreeAutoscaling": True} if case.endswith("RayCluster") else {}))
    pg = one([c, raypod("p", c)], monkeypatch)
    assert pg["metadata"]["name"] == "pg-test-ray-cluster-1", case
    assert pg["metadata"]["ownerReferences"] == [{"apiVersion": "ray.io/v1alpha1", "kind": "RayCluster",
                                                  "name": "test-ray-cluster", "uid": "1"}], case  # fmt: skip
    assert len(pg["metadata"]["labels"]) == 1 + len(labels)
    assert (pg["spec"]["queue"], pg["spec"]["priorityClassName"], pg["spec"]["minMember"]) == ("q", priority, minimum), case


@pytest.mark.parametrize(("case", "kind", "version", "status"), [
    ("TestGetPodGroupMetadata_RayJob", "RayJob", "v1alpha1", {"rayClusterName": "test-ray-cluster"}),
    ("TestGetPodGroupMetadata_RayJob_v1", "RayJob", "v1", {"rayClusterName": "test-ray-cluster"}),
    ("TestGetPodGroupMetadata_RayService", "RayService", "v1alpha1", {"activeServiceStatus": {"rayClusterName": "test-ray-cluster"}}),
])  # fmt: skip
def test_ray_job_and_service_metadata(case: str, kind: str, version: str, status: dict, monkeypatch) -> None:
    """The RayJob (v1alpha1, v1) and RayService cases: the PodGroup is the top owner's,
    minMember its RayCluster's (named in its status; the cluster's uid differs from the
    top's here, which Go's fixture shares)."""
    t = top(kind, status, version=version)
    c = cluster(copy.deepcopy(AUTOSCALING), uid="c-1", version=version, owner=t)
    pg = one([t, c, raypod("p", c)], monkeypatch)
    assert pg["metadata"]["name"] == "pg-test-name-1", case
    assert pg["metadata"]["ownerReferences"] == [{"apiVersion": f"ray.io/{version}", "kind": kind, "name": "test-name",
                                                  "uid": "1"}], case  # fmt: skip
    assert (pg["spec"]["priorityClassName"], pg["spec"]["minMember"]) == ("train", 4), case
    assert len(pg["metadata"]["labels"]) == 1


@pytest.mark.parametrize(("case", "workers", "expected"), [
    ("TestGetPodGroupMetadata_RayCluster_SubGroups_Default", AUTOSCALING,
     [("headgroup", 1, None), ("worker-group-0", 2, None), ("worker-group-1", 1, None)]),
    ("TestGetPodGroupMetadata_RayCluster_SubGroups_NamedWorkerGroups", NAMED,
     [("headgroup", 1, None), ("gpu-workers", 2, None), ("cpu-workers", 1, None)]),
    ("TestGetPodGroupMetadata_RayCluster_SuspendedWorkers_SubGroups", SUSPENDED,
     [("headgroup", 1, None), ("worker-group-0", 2, None)]),
    ("TestGetPodGroupMetadata_BackwardsCompatibility_NoPodGroupExists", AUTOSCALING,
     [("headgroup", 1, None), ("worker-group-0", 2, None), ("worker-group-1", 1, None)]),
])  # fmt: skip
def test_ray_subgroups(case: str, workers: list, expected: list, monkeypatch) -> None:
    c = cluster(copy.deepcopy(workers))
    assert sgs(one([c, raypod("p", c)], monkeypatch)) == expected, case


def _tc(topology: str, required: str, preferred: str) -> dict:
    return {"topology": topology, "requiredTopologyLevel": required, "preferredTopologyLevel": preferred}


def _ann(**kw: str) -> dict:
    keys = {"t": kg.TOPOLOGY, "r": kg.TOPOLOGY_REQUIRED, "p": kg.TOPOLOGY_PREFERRED}
    return {"template": {"metadata": {"annotations": {keys[k]: v for k, v in kw.items()}}}}


def test_ray_TestGetPodGroupMetadata_RayCluster_SubGroups_WithTopologyConstraints(monkeypatch) -> None:
    workers = [{"groupName": "gpu-workers", "replicas": 3, "minReplicas": 2, **_ann(t="test-topology", r="zone", p="rack")},
               {"groupName": "cpu-workers", "replicas": 1, "minReplicas": 1, **_ann(t="test-topology", p="host")},
               {"groupName": "best-effort-workers", "replicas": 1, "minReplicas": 1, **_ann(t="test-topology")}]  # fmt: skip
    c = cluster(workers, name="topology-ray-cluster", uid="2", version="v1", head=_ann(t="test-topology", r="rack", p="node"))
    assert sgs(one([c, raypod("p", c)], monkeypatch)) == [
        ("headgroup", 1, _tc("test-topology", "rack", "node")), ("gpu-workers", 2, _tc("test-topology", "zone", "rack")),
        ("cpu-workers", 1, _tc("test-topology", "", "host")), ("best-effort-workers", 1, None)]  # fmt: skip


def _legacy_pg(subgroups: list | None) -> dict:
    spec: dict = {"minMember": 4, "queue": "q"}
    if subgroups is not None:
        spec["subGroups"] = subgroups
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": "pg-test-ray-cluster-1", "namespace": NS, "uid": "pg-uid"}, "spec": spec}  # fmt: skip


@pytest.mark.parametrize(("case", "existing", "count"), [
    ("TestGetPodGroupMetadata_BackwardsCompatibility_ExistingPodGroupWithoutSubGroups", None, 0),
    ("TestGetPodGroupMetadata_BackwardsCompatibility_ExistingPodGroupWithSubGroups",
     [{"name": "headgroup", "minMember": 1}, {"name": "worker-group-0", "minMember": 2}, {"name": "worker-group-1", "minMember": 1}], 3),
])  # fmt: skip
def test_ray_backwards_compatibility(case: str, existing, count: int, monkeypatch) -> None:
    """A KAI PodGroup of the name without sub-groups (a legacy workload) gets none; one
    with sub-groups gets them (the snapshot's PodGroup is updated, its queue kept)."""
    c = cluster(copy.deepcopy(AUTOSCALING))
    pg = one([_legacy_pg(existing), c, raypod("p", c)], monkeypatch)
    assert (pg["spec"]["minMember"], len(pg["spec"].get("subGroups", []))) == (4, count), case


@pytest.mark.parametrize(("case", "flat", "expected"), [
    ("TestShouldUseSubGroups_NoPodGroupExists", [], True),
    ("TestShouldUseSubGroups_PodGroupExistsWithoutSubGroups", [("test-ns", "pg-test-pg")], False),
    ("TestShouldUseSubGroups_PodGroupExistsWithSubGroups", [], True),
])  # fmt: skip
def test_ray_should_use_subgroups(case: str, flat: list, expected: bool) -> None:
    """shouldUseSubGroups on its own: the grouper is given the KAI PodGroups without
    sub-groups (a PodGroup with sub-groups, or none, is not among them); Go's PodGroup
    ``test-pg`` is here the name the RayCluster ``test`` of uid ``pg`` gets."""
    c = kg.Owner("ray.io/v1", "RayCluster", "test", "pg", {}, {}, {"spec": {"headGroupSpec": {}}})
    md = kg.Grouper(flat=flat).ray(c, kg.Pod("p", "test-ns", "", {}, {}), c)
    assert md.name == "pg-test-pg" and bool(md.subgroups) is expected, case


# -- rules, on small clusters -------------------------------------------------------------------
def test_hub_maps_ray_kinds_at_v1alpha1_and_v1() -> None:
    for v in ("v1alpha1", "v1"):
        assert [kg.plugin_of(f"ray.io/{v}", k) for k in ("RayCluster", "RayJob", "RayService")] == \
            ["raycluster", "rayjob", "rayservice"]  # fmt: skip
    assert kg.plugin_of("ray.io/v2", "RayCluster") == "default"


def test_a_rayjobs_cluster_is_one_gang_and_each_pod_in_its_groups_subgroup(monkeypatch) -> None:
    """A RayJob's RayCluster of a head and a worker group of 2: one PodGroup (minMember 3)
    for the RayJob; the head pod in ``headgroup``, workers in ``worker-group-0``; 2 GPUs
    place nothing (each pod a job of one before)."""
    t = top("RayJob", {"rayClusterName": "rc"}, version="v1")
    c = cluster([{"replicas": 2}], name="rc", uid="c-1", version="v1", owner=t)
    pods = [raypod("rc-head", c, "headgroup"), raypod("rc-w-0", c, "worker-group-0"), raypod("rc-w-1", c, "worker-group-0")]
    _, labels = made([t, c, *pods], monkeypatch)
    assert labels == {"rc-head": "headgroup", "rc-w-0": "worker-group-0", "rc-w-1": "worker-group-0"}
    out = decide([node("a", gpu=2), kai_queue("q", -1), t, c, *pods])
    assert list(jobs(out)) == [f"{NS}/pg-test-name-1"] and out["bindings"] == []
    assert len(decide([node("a", gpu=3), kai_queue("q", -1), t, c, *pods])["bindings"]) == 3


def test_ray_pod_with_an_unknown_group_label_gets_no_subgroup(monkeypatch) -> None:
    """assignRayPodToSubGroup only logs a group label that names no sub-group (or none)."""
    c = cluster([{"replicas": 1}])
    _, labels = made([c, raypod("a", c, "nope"), raypod("b", c)], monkeypatch)
    assert labels == {"a": None, "b": None}


def test_ray_replicas_and_min_replicas_rules(monkeypatch) -> None:
    """A group with neither replicas nor minReplicas is skipped; minReplicas wins over
    replicas when positive; numOfHosts multiplies; a head only: minMember 1."""
    c = cluster([{}, {"replicas": 4}, {"replicas": 4, "minReplicas": 3, "numOfHosts": 2}, {"minReplicas": 0, "replicas": 0}])
    pg = one([c, raypod("p", c)], monkeypatch)
    assert pg["spec"]["minMember"] == 1 + 4 + 6
    assert [n for n, _, _ in sgs(pg)] == ["headgroup", "worker-group-1", "worker-group-2"]
    c = cluster([])
    del c["spec"]["workerGroupSpecs"]
    assert one([c, raypod("p", c)], monkeypatch)["spec"]["minMember"] == 1


def test_ray_counts_wrap_as_go_int32(monkeypatch) -> None:
    """int32(replicas × numOfHosts), summed as int32: 2^32 + 2 replicas count 2; 1 +
    (2^31 - 1) + (2^31 - 1) + 2 wraps round to 1."""
    c = cluster([{"replicas": 2**32 + 2}])
    assert one([c, raypod("p", c)], monkeypatch)["spec"]["minMember"] == 3
    c = cluster([{"replicas": 2**31 - 1}, {"replicas": 2**31 - 1}, {"replicas": 2}])
    assert one([c, raypod("p", c)], monkeypatch)["spec"]["minMember"] == 1


def test_a_rayjob_whose_cluster_the_snapshot_lacks_is_a_job_of_one_with_a_warning() -> None:
    """status.rayClusterName names a RayCluster the snapshot lacks: KAI's Get fails; here,
    as any owner the snapshot lacks, the pod is a job of one with a warning naming it."""
    t = top("RayJob", {"rayClusterName": "other"}, version="v1")
    c = cluster([{"replicas": 1}], name="rc", uid="c-1", version="v1", owner=t)
    out = decide([*BASE, t, c, raypod("p", c)])
    assert list(jobs(out)) == [f"{NS}/p"] and any("RayCluster other (named by RayJob test-name)" in w for w in out["warnings"])


def test_a_rayservice_takes_the_pending_cluster_when_no_active_one(monkeypatch) -> None:
    t = top("RayService", {"pendingServiceStatus": {"rayClusterName": "rc"}}, version="v1")
    c = cluster([{"replicas": 5}], name="rc", uid="c-1", version="v1", owner=t)
    assert one([t, c, raypod("p", c)], monkeypatch)["spec"]["minMember"] == 6


@pytest.mark.parametrize(("status", "pointer"), [
    ({}, "/objects/3/status"),
    ({"rayClusterName": ""}, "/objects/3/status"),
    ({"rayClusterName": 3}, "/objects/3/status/rayClusterName"),
])  # fmt: skip
def test_rayjob_cluster_name_errors_are_a_422(status: dict, pointer: str) -> None:
    """No status.rayClusterName, an empty one (KAI: make sure the ray-operator is up), or
    one that is not a string: KAI's error, a 422 at the RayJob."""
    t = top("RayJob", status, version="v1")
    c = cluster([{"replicas": 1}], name="rc", uid="c-1", version="v1", owner=t)
    assert refused([t, c, raypod("p", c)]).pointer == pointer


@pytest.mark.parametrize(("mutate", "pointer"), [
    (lambda s: s.__setitem__("workerGroupSpecs", {}), "/spec/workerGroupSpecs"),
    (lambda s: s.__setitem__("workerGroupSpecs", ["x"]), "/spec/workerGroupSpecs/0"),
    (lambda s: s["workerGroupSpecs"][0].__setitem__("minReplicas", 5), "/spec/workerGroupSpecs/0/replicas"),
    (lambda s: s["workerGroupSpecs"][0].__setitem__("replicas", "2"), "/spec/workerGroupSpecs/0/replicas"),
    (lambda s: s["workerGroupSpecs"][0].__setitem__("suspended", "yes"), "/spec/workerGroupSpecs/0/suspended"),
    (lambda s: s["workerGroupSpecs"][0].__setitem__("numOfHosts", 1.5), "/spec/workerGroupSpecs/0/numOfHosts"),
    (lambda s: s["workerGroupSpecs"][0].update(_ann(r="rack")), "/spec/workerGroupSpecs/0/template/metadata/annotations"),
    (lambda s: s["workerGroupSpecs"][0].update(_ann(t=1)),
     f"/spec/workerGroupSpecs/0/template/metadata/annotations/{kg.TOPOLOGY.replace('/', '~1')}"),
    (lambda s: s.__setitem__("headGroupSpec", "x"), "/spec/headGroupSpec"),
    (lambda s: s.__setitem__("headGroupSpec", _ann(p="node")), "/spec/headGroupSpec/template/metadata/annotations"),
])  # fmt: skip
def test_ray_cluster_errors_are_a_422_at_the_cluster(mutate, pointer: str) -> None:
    """Errors in the RayCluster a RayJob names point at the RayCluster, not the RayJob:
    workerGroupSpecs not a list, an entry not an object (Go's type assertion panics),
    minReplicas past replicas, fields of the wrong type, placement annotations without a
    topology."""
    t = top("RayJob", {"rayClusterName": "rc"}, version="v1")
    c = cluster([{"replicas": 2}], name="rc", uid="c-1", version="v1", owner=t)
    mutate(c["spec"])
    e = refused([t, c, raypod("p", c)])
    assert e.pointer == "/objects/4" + pointer and e.obj["kind"] == "RayCluster", e.detail


def test_ray_the_same_answer_whatever_the_order_of_objects() -> None:
    t = top("RayJob", {"rayClusterName": "rc"}, version="v1")
    c = cluster([{"replicas": 2}], name="rc", uid="c-1", version="v1", owner=t)
    c2 = cluster([{"groupName": "g", "replicas": 1}], name="solo", uid="c-2", version="v1")
    objs = [node("a", gpu=3), node("b", gpu=2), kai_queue("q", -1), t, c, c2,
            raypod("rc-head", c, "headgroup"), raypod("rc-w-0", c, "worker-group-0"), raypod("rc-w-1", c, "worker-group-0"),
            raypod("solo-head", c2, "headgroup", created="2026-11-23T09:00:00Z"), raypod("solo-g", c2, "g")]  # fmt: skip
    want = decide_in_any_order(objs, 9)
    assert sorted(jobs(want)) == [f"{NS}/pg-solo-c-2", f"{NS}/pg-test-name-1"]


def test_a_raycluster_named_by_many_rayjobs_is_computed_once(monkeypatch) -> None:
    """ray_grouper.go ``calcJobNumOfPodsAndSubGroups`` of the RayCluster each RayJob names
    (``rayjob_grouper.go``): three RayJobs naming one RayCluster (a head and worker group
    ``w`` of 2) each get a PodGroup of minMember 3 with sub-groups headgroup and w; the
    RayCluster's sub-groups are computed once (not once per PodGroup: many RayJobs on a big
    RayCluster was quadratic), and each PodGroup holds its own copies, its pod in its own."""
    calls: list[str] = []
    real = kg.ray_pods_and_subgroups
    monkeypatch.setattr(kg, "ray_pods_and_subgroups", lambda c: (calls.append(c.name), real(c))[1])
    rc = cluster([{"groupName": "w", "replicas": 2}], name="rc", uid="u-rc")
    tops = [top("RayJob", {"rayClusterName": "rc"}, version="v1", name=f"rj{i}", uid=f"u-rj{i}") for i in range(3)]
    pods = [raypod(f"p{i}", t, "w") for i, t in enumerate(tops)]
    pgs, labels = made([rc, *tops, *pods], monkeypatch)
    assert calls == ["rc"]
    assert sorted(pgs) == ["pg-rj0-u-rj0", "pg-rj1-u-rj1", "pg-rj2-u-rj2"]
    assert all(pg["spec"]["minMember"] == 3 and sgs(pg) == [("headgroup", 1, None), ("w", 2, None)] for pg in pgs.values())
    assert labels == {"p0": "w", "p1": "w", "p2": "w"}


def test_ray_subgroups_past_the_request_bound_are_a_422_at_the_rayclusters_worker_groups() -> None:
    """Gangplank's bound on the sub-groups of a request (SECURITY.md, *Limits*: 8 per
    object, at least 10,000): eleven RayJobs naming one RayCluster of 1,000 worker groups
    make 11 PodGroups of 1,001 sub-groups each (ray_grouper.go
    ``calcJobNumOfPodsAndSubGroups``), 11,011 for 26 objects: a 422 at the RayCluster's
    ``spec/workerGroupSpecs``, naming it."""
    rc = cluster([{"groupName": f"g{i}", "replicas": 1} for i in range(1000)], name="rc", uid="u-rc")
    tops = [top("RayJob", {"rayClusterName": "rc"}, version="v1", name=f"rj{i}", uid=f"u-rj{i}") for i in range(11)]
    e = refused([rc, *tops, *[raypod(f"p{i}", t) for i, t in enumerate(tops)]])
    assert e.status == 422 and e.pointer == "/objects/3/spec/workerGroupSpecs" and e.obj["name"] == "rc"


@pytest.mark.parametrize("workers", [
    [{"groupName": "w", "replicas": 1}, {"groupName": "w", "replicas": 2}],
    [{"groupName": "headgroup", "replicas": 1}],
    [{"replicas": 1}, {"groupName": "worker-group-0", "replicas": 1}],
])  # fmt: skip
def test_ray_duplicate_worker_group_name_holds_the_podgroups_pods_unscheduled(workers: list) -> None:
    """ray_grouper.go ``calcJobNumOfPodsAndSubGroups`` names each worker group's sub-group
    its ``groupName`` (else ``worker-group-<i>``) without checking duplicates; the
    PodGroup's webhook (podgroup_webhook.go ``validateSubGroups``, on by default,
    failurePolicy Fail) refuses a duplicate, so ApplyToCluster fails and Reconcile returns
    before annotating the pods: the RayJob's pods get no PodGroup and are never scheduled
    (held as pods of another scheduler, a warning names the refusal), and the rest of the
    request (another RayCluster's PodGroup) is answered as without it."""
    rc = cluster(workers, name="rc", uid="u-rc")
    t = top("RayJob", {"rayClusterName": "rc"}, version="v1", name="rj", uid="u-rj")
    ok = cluster([], name="rc2", uid="u-rc2")  # (its head alone: minMember 1)
    out = decide([*BASE, t, rc, raypod("p", t, "w"), ok, raypod("q", ok, kg.RAY_HEAD_GROUP)])
    assert [b["pod"] for b in out["bindings"]] == [f"{NS}/q"]
    assert "so KAI never schedules it" in jobs(out)[f"{NS}/p"]["message"]
    assert any("duplicate subgroup name" in w and f"{NS}/pg-rj-u-rj" in w for w in out["warnings"])


def test_ray_duplicate_worker_group_name_is_no_error_without_subgroups(monkeypatch) -> None:
    """ray_grouper.go ``shouldUseSubGroups``: a KAI PodGroup of the name without sub-groups
    keeps none, so duplicate worker group names reach no webhook: the PodGroup is updated."""
    c = cluster([{"groupName": "w", "replicas": 1}, {"groupName": "w", "replicas": 2}])
    pg = one([_legacy_pg(None), c, raypod("p", c)], monkeypatch)
    assert (pg["spec"]["minMember"], pg["spec"].get("subGroups")) == (4, None)


def test_nested_field_a_null_on_the_way_is_not_found(monkeypatch) -> None:
    """``unstructured.NestedFieldNoCopy``: a null before the last step is not found (Go's
    ``val == nil``), so a RayCluster with ``spec: null`` has its head group only (minMember
    1, ``calcJobNumOfPodsAndSubGroups``) where a ``spec`` of another type is an error; a
    null at the last step is found, and the typed accessor refuses it (``NestedSlice``)."""
    c = cluster([])
    c["spec"] = None
    pg = one([c, raypod("p", c)], monkeypatch)
    assert pg["spec"]["minMember"] == 1
    assert kg.nested({"spec": None}, "spec", "headGroupSpec") == (None, False)
    assert kg.nested({"spec": {"headGroupSpec": None}}, "spec", "headGroupSpec") == (None, True)
    bad = cluster([])
    bad["spec"]["workerGroupSpecs"] = None
    assert refused([bad, raypod("p", bad)]).pointer.endswith("/spec/workerGroupSpecs")
    other = cluster([])
    other["spec"] = "x"
    assert refused([other, raypod("p", other)]).pointer.endswith("/spec")
