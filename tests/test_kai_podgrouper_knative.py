"""KAI's pod-grouper, serving.knative.dev/v1 Service (``knative.go``, ``--knative-gang-schedule``
on by default): the Go test table transcribed (each test names its Go test function and
case; the cases with the flag off are not the default and are left out) and run end to end
through the service with the default ``kai`` profile (a pod → its Revision → the Service),
then one test per rule."""

from __future__ import annotations

import pytest

from app.errors import InputError
from app.ingest import kaigrouper as kg
from tests.kube import node, pod, priority_class
from tests.test_kai import kai_queue
from tests.test_kai_podgrouper import KAI_SCHED, _read, decide, decide_in_any_order, jobs, made_podgroups

KN = "pkg/podgrouper/podgrouper/plugins/knative/knative_test.go"
NS = "test_namespace"
REV = kg.KNATIVE_REVISION_LABEL
BASE = [node("a", gpu=8), kai_queue("test_queue", -1)]


def service() -> dict:
    return {"apiVersion": "serving.knative.dev/v1", "kind": "Service",
            "metadata": {"name": "test_service", "namespace": NS, "uid": "1", "labels": {"test_label": "test_value"},
                         "annotations": {"test_annotation": "test_value"}}, "spec": {}}  # fmt: skip


def revision(name: str = "revision", uid: str = "revuid", *, annotations=None, labels=None) -> dict:
    meta = {"name": name, "namespace": NS, "uid": uid,
            "ownerReferences": [{"apiVersion": "serving.knative.dev/v1", "kind": "Service", "name": "test_service", "uid": "1"}]}  # fmt: skip
    if annotations:
        meta["annotations"] = annotations
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "serving.knative.dev/v1", "kind": "Revision", "metadata": meta, "spec": {}}


def kpod(name: str, uid: str, rev: dict | None, *, labels=None, group: str | None = None,
         created: str = "2026-11-23T10:00:00Z") -> dict:  # fmt: skip
    """A kai-scheduler pod of the Revision (labelled with it unless ``labels`` says otherwise)."""
    lab = {kg.QUEUE_LABEL: "test_queue", **({REV: rev["metadata"]["name"]} if rev else {}), **(labels or {})}
    p = pod(name, ns=NS, gpu=1, labels=lab, annotations={kg.kube.KAI_GROUP_ANNOTATION: group} if group else None,
            extra_spec=KAI_SCHED, created=created)  # fmt: skip
    p["metadata"]["uid"] = uid
    if rev is not None:
        m = rev["metadata"]
        p["metadata"]["ownerReferences"] = [{"apiVersion": "serving.knative.dev/v1", "kind": "Revision", "name": m["name"],
                                             "uid": m["uid"], "controller": True}]  # fmt: skip
    return p


def kai_pg(name: str, owner_kind: str | None = None) -> dict:
    meta: dict = {"name": name, "namespace": NS, "uid": f"u-{name}"}
    if owner_kind is not None:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": owner_kind, "name": "old-pod-1", "uid": "oldpoduid-1"}]
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": meta, "spec": {"queue": "test_queue"}}


def pg_of(objs: list[dict], monkeypatch, pod_name: str = "pod") -> dict:
    """The PodGroup the grouper made (or updated) for ``pod_name``."""
    pgs, _ = made_podgroups([*BASE, *objs], monkeypatch)
    js = _read([*BASE, *objs]).cluster.jobs
    (key,) = [j.key for j in (js.values() if isinstance(js, dict) else js) if any(t.name == pod_name for t in j.tasks)]
    return pgs[key.split("/", 1)[1]]


# -- knative_test.go ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("case", "annotations", "minimum"), [
    ("TestGetPodGroupMetadata", None, 1),
    ("TestGetPodGroupMetadata_MinScale", {kg.KNATIVE_MIN_SCALE: "3"}, 3),
])  # fmt: skip
def test_knative_revision_podgroup(case: str, annotations, minimum: int, monkeypatch) -> None:
    rev = revision("revision", "2", annotations=annotations)
    pg = pg_of([service(), rev, kpod("pod", "3", rev)], monkeypatch)
    assert pg["metadata"]["name"] == "pg-revision-2", case
    assert (pg["spec"]["priorityClassName"], pg["spec"]["queue"], pg["spec"].get("minMember", 1)) == ("inference", "test_queue", minimum)


def _old(name: str, uid: str, rev: dict, group: str) -> dict:
    return kpod(name, uid, rev, group=group, created="2026-11-23T09:00:00Z")


@pytest.mark.parametrize(("case", "min_scale", "old", "podgroups", "name", "minimum"), [
    ("one pod service - default gang schedule", None, [], [], "pg-revision-revuid", 1),
    ("legacy service - gang schedule enabled", None,
     [("old-pod-1", "oldpoduid-1", "pg-old-pod-oldpoduid-1"), ("old-pod-2", "oldpoduid-2", "pg-old-pod-oldpoduid-2")],
     ["pg-old-pod-oldpoduid-1", "pg-old-pod-oldpoduid-2"], "pg-pod-poduid", 1),
    ("gang service - gang schedule enabled", None,
     [("old-pod-1", "oldpoduid-1", "pg-revision-revuid"), ("old-pod-2", "oldpoduid-2", "pg-revision-revuid")],
     ["pg-revision-revuid"], "pg-revision-revuid", 1),
    ("gang service - gang schedule enabled - minavailable defined", "3",
     [("old-pod-1", "oldpoduid-1", "pg-revision-revuid"), ("old-pod-2", "oldpoduid-2", "pg-revision-revuid")],
     ["pg-revision-revuid"], "pg-revision-revuid", 3),
    ("one existing pod, no podgroup - no error expected", "3", [("old-pod-1", "oldpoduid-1", "pg-revision-revuid")], [],
     "pg-revision-revuid", 3),
])  # fmt: skip
def test_knative_TestGetPodGroupMetadataBackwardsCompatibility(case: str, min_scale, old: list, podgroups: list, name: str,
                                                               minimum: int, monkeypatch) -> None:  # fmt: skip
    """The gang-schedule cases of TestGetPodGroupMetadataBackwardsCompatibility (the old
    pods' PodGroups are in the snapshot when Go's case never looks them up: several, or one
    named by two pods; where it looks one up and finds none, the snapshot lacks it and the
    old pod, annotated with it and owned, is grouped again with the new one)."""
    rev = revision(annotations={kg.KNATIVE_MIN_SCALE: min_scale} if min_scale else None)
    objs = [service(), rev, *[kai_pg(n) for n in podgroups], kpod("pod", "poduid", rev),
            *[_old(n, u, rev, g) for n, u, g in old]]  # fmt: skip
    pg = pg_of(objs, monkeypatch)
    assert (pg["metadata"]["name"], pg["spec"]["priorityClassName"], pg["spec"].get("minMember", 1)) == (name, "inference", minimum), case


def test_knative_one_existing_pod_existing_non_gang_podgroup(monkeypatch) -> None:
    """TestGetPodGroupMetadataBackwardsCompatibility, "one existing pod, existing non-gang
    podgroup": the old pod's PodGroup is owned by a Pod: the Revision is grouped pod by pod."""
    rev = revision(annotations={kg.KNATIVE_MIN_SCALE: "3"})
    objs = [service(), rev, kai_pg("pg-old-pod-1-oldpoduid-1", "Pod"), kpod("pod", "poduid", rev),
            _old("old-pod-1", "oldpoduid-1", rev, "pg-old-pod-1-oldpoduid-1")]  # fmt: skip
    pg = pg_of(objs, monkeypatch)
    assert (pg["metadata"]["name"], pg["spec"].get("minMember", 1), pg["spec"]["priorityClassName"]) == ("pg-pod-poduid", 1, "inference")
    assert pg["metadata"]["ownerReferences"][0]["kind"] == "Pod"


@pytest.mark.parametrize(("case", "pod_labels", "rev_labels", "cls"), [
    ("priority class name set in pod", {"priorityClassName": "very-high"}, None, priority_class("very-high", 125)),
    ("priority class name set in top owner", {}, {"priorityClassName": "high"}, priority_class("high", 100)),
])  # fmt: skip
def test_knative_priority_class(case: str, pod_labels: dict, rev_labels, cls: dict, monkeypatch) -> None:
    rev = revision(labels=rev_labels)
    pg = pg_of([cls, service(), rev, kpod("pod", "poduid", rev, labels=pod_labels)], monkeypatch)
    assert (pg["metadata"]["name"], pg["spec"]["priorityClassName"]) == ("pg-revision-revuid", cls["metadata"]["name"]), case


# -- rules, on small clusters -------------------------------------------------------------------
def test_hub_maps_knative_service_v1() -> None:
    assert kg.plugin_of("serving.knative.dev/v1", "Service") == "knative"
    assert kg.plugin_of("serving.knative.dev/v1beta1", "Service") == kg.plugin_of("v1", "Service") == "default"


def test_a_revisions_pods_are_one_gang_of_min_scale() -> None:
    """Three pods of a Revision of min-scale 3: one PodGroup, all or nothing (each pod a job
    of one before)."""
    rev = revision(annotations={kg.KNATIVE_MIN_SCALE: "3"})
    pods = [kpod(f"p{i}", f"u{i}", rev) for i in range(3)]
    out = decide([node("a", gpu=2), kai_queue("test_queue", -1), service(), rev, *pods])
    assert list(jobs(out)) == [f"{NS}/pg-revision-revuid"] and out["bindings"] == []
    assert len(decide([node("a", gpu=3), kai_queue("test_queue", -1), service(), rev, *pods])["bindings"]) == 3


def test_knative_podgroup_takes_no_preemptibility_nor_topology_from_the_revision(monkeypatch) -> None:
    """knative.go builds its Metadata without preemptibility and topology."""
    rev = revision(labels={kg.PREEMPTIBILITY_LABEL: "non-preemptible"}, annotations={kg.TOPOLOGY: "t", kg.TOPOLOGY_REQUIRED: "rack"})
    pg = pg_of([service(), rev, kpod("pod", "poduid", rev)], monkeypatch)
    assert "preemptibility" not in pg["spec"]
    assert pg["spec"]["topologyConstraint"] == {"preferredTopologyLevel": "", "requiredTopologyLevel": "", "topology": ""}


def test_knative_min_scale_not_an_integer_is_one(monkeypatch) -> None:
    rev = revision(annotations={kg.KNATIVE_MIN_SCALE: "x"})
    assert pg_of([service(), rev, kpod("pod", "poduid", rev)], monkeypatch)["spec"].get("minMember", 1) == 1


def test_knative_pod_without_the_revision_label_is_a_422() -> None:
    rev = revision()
    p = kpod("pod", "poduid", rev)
    del p["metadata"]["labels"][REV]
    with pytest.raises(InputError) as e:
        _read([*BASE, service(), rev, p])
    assert e.value.pointer == "/objects/4/metadata/labels" and "revisionName not found" in e.value.detail


def test_knative_revision_the_snapshot_lacks_is_a_job_of_one_with_a_warning() -> None:
    rev = revision()
    p = kpod("pod", "poduid", rev, labels={REV: "other"})
    out = decide([*BASE, service(), rev, p])
    assert list(jobs(out)) == [f"{NS}/pod"] and any("Revision other" in w for w in out["warnings"])


@pytest.mark.parametrize(("owners", "pointer"), [
    ([], "/objects/4/metadata"),
    ([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "x"}], "/objects/4/metadata/ownerReferences/0/kind"),
    ("x", "/objects/4/metadata/ownerReferences"),
])  # fmt: skip
def test_knative_the_only_podgroup_with_odd_owners_is_a_422(owners, pointer: str) -> None:
    """isBCRevision: the one PodGroup the Revision's pods name has no owner, or one neither
    the Revision nor a Pod: KAI's error; ownerReferences the API server refuses: a 422."""
    rev = revision()
    pg = kai_pg("pg-x")
    pg["metadata"]["ownerReferences"] = owners
    with pytest.raises(InputError) as e:
        _read([*BASE, service(), rev, pg, kpod("pod", "poduid", rev), _old("old", "oldUID", rev, "pg-x")])
    assert e.value.pointer == pointer


def test_knative_the_same_answer_whatever_the_order_of_objects() -> None:
    rev = revision(annotations={kg.KNATIVE_MIN_SCALE: "2"})
    rev2 = revision("rev2", "r2")
    objs = [node("a", gpu=2), node("b", gpu=1), kai_queue("test_queue", -1), service(), rev, rev2,
            kai_pg("pg-old-a-ua", "Pod"), _old("old-a", "ua", rev2, "pg-old-a-ua"),
            *[kpod(f"p{i}", f"u{i}", rev) for i in range(2)], kpod("q", "uq", rev2)]  # fmt: skip
    want = decide_in_any_order(objs, 19)
    assert sorted(jobs(want)) == [f"{NS}/pg-old-a-ua", f"{NS}/pg-q-uq", f"{NS}/pg-revision-revuid"]
