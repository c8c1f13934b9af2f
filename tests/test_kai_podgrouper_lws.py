"""KAI's pod-grouper, leaderworkerset.x-k8s.io/v1 LeaderWorkerSet (``lws_grouper.go``): the Go
test table transcribed (each test names its Go test function) and run end to end through
the service with the default ``kai`` profile, on the owner chains LWS makes (a leader pod →
the leader StatefulSet → the LWS; a worker pod → its group's worker StatefulSet → the
leader pod → ...), then one test per rule."""

from __future__ import annotations

import pytest

from app.errors import InputError
from app.ingest import kaigrouper as kg
from tests.kube import node, pod
from tests.test_kai import kai_queue
from tests.test_kai_podgrouper import KAI_SCHED, _read, decide, decide_in_any_order, jobs, made_podgroups

LW = "pkg/podgrouper/podgrouper/plugins/leaderworkerset/lws_grouper_test.go"
GI, WI, SIZE = kg.LWS_GROUP_INDEX_LABEL, kg.LWS_WORKER_INDEX_LABEL, kg.LWS_SIZE_ANNOTATION
BASE = [node("a", gpu=8), node("b", gpu=8), node("worker-node", gpu=8), kai_queue("q", -1)]


def lws(name: str, startup: str | None, size, *, segment=None, policy=None, topology: dict | None = None,
        annotations=None) -> dict:  # fmt: skip
    """Go's ``lwsOwner`` (``segment``: subGroupPolicy.subGroupSize, ``policy`` its type,
    ``topology`` the worker template's annotations, set only with a segment as in Go)."""
    lwt: dict = {"workerTemplate": {"metadata": {}}, "size": size}
    if segment is not None:
        lwt["subGroupPolicy"] = {"subGroupSize": segment}
        if policy is not None:
            lwt["subGroupPolicy"]["subGroupPolicyType"] = policy
        if topology is not None:
            lwt["workerTemplate"]["metadata"]["annotations"] = {
                kg.SEGMENT_REQUIRED: topology.get("requiredTopologyLevel", ""),
                kg.SEGMENT_PREFERRED: topology.get("preferredTopologyLevel", ""), kg.TOPOLOGY: topology["topology"]}  # fmt: skip
    spec: dict = {"leaderWorkerTemplate": lwt}
    if startup is not None:
        spec["startupPolicy"] = startup
    meta = {"name": name, "namespace": "default", "uid": f"{name}-uid", **({"annotations": annotations} if annotations else {})}
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": meta, "spec": spec}


def _ref(o: dict) -> dict:
    m = o["metadata"]
    return {"apiVersion": o["apiVersion"], "kind": o["kind"], "name": m["name"], "uid": m["uid"], "controller": True}


def _sts(name: str, owner: dict) -> dict:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"u-sts-{name}", "ownerReferences": [_ref(owner)]},
            "spec": {}}  # fmt: skip


def _pod(name: str, owner: dict, labels: dict, annotations: dict | None, node_name: str | None, kai: bool) -> dict:
    p = pod(name, gpu=1, node=node_name, phase="Running" if node_name else None, labels={kg.QUEUE_LABEL: "q", **labels},
            annotations=annotations, extra_spec=KAI_SCHED if kai else None)  # fmt: skip
    p["metadata"]["ownerReferences"] = [_ref(owner)]
    return p


def chain(top: dict, members: list[tuple], *, group: str = "0") -> list[dict]:
    """``top``, its leader StatefulSet, the group's leader pod (``<lws>-<group>``) and, when
    a member is a worker, the group's worker StatefulSet (owned by the leader pod) and the
    workers. ``members``: (pod name, labels, annotations, nodeName, is leader, kai-scheduler);
    a leader pod not listed is added as an owner only (of the default scheduler)."""
    name = top["metadata"]["name"]
    leader_sts = _sts(name, top)
    out = [top, leader_sts]
    leaders = [m for m in members if m[4]]
    leader = (_pod(leaders[0][0], leader_sts, *leaders[0][1:4], leaders[0][5]) if leaders else
              _pod(f"{name}-{group}", leader_sts, {GI: group, WI: "0"}, None, "a", False))  # fmt: skip
    out.append(leader)
    workers = [m for m in members if not m[4]]
    if workers:
        worker_sts = _sts(f"{name}-{group}", leader)
        out.append(worker_sts)
        out += [_pod(m[0], worker_sts, *m[1:4], m[5]) for m in workers]
    return out


def member(name: str, labels: dict, *, leader: bool = False, annotations=None, node_name=None, kai: bool = True) -> tuple:
    return (name, labels, annotations, node_name, leader, kai)


def made(objs: list[dict], monkeypatch) -> tuple[dict[str, dict], dict[str, str | None]]:
    return made_podgroups([*BASE, *objs], monkeypatch)


def subgroups(pg: dict) -> list[tuple]:
    """(name, minMember, parent, topology constraint) of each sub-group, in order."""
    return [(sg["name"], sg.get("minMember", 0), sg.get("parent"), sg.get("topologyConstraint"))
            for sg in pg["spec"].get("subGroups", [])]  # fmt: skip


def refused(objs: list[dict]) -> InputError:
    with pytest.raises(InputError) as e:
        _read([*BASE, *objs])
    return e.value


# -- lws_grouper_test.go: GetPodGroupMetadata -------------------------------------------------------
def test_lws_TestGetPodGroupMetadata_LeaderCreated(monkeypatch) -> None:
    top = lws("lws-test", "LeaderCreated", 3)
    pgs, labels = made(chain(top, [member("lws-test-0-1", {})]), monkeypatch)
    (pg,) = pgs.values()
    assert pg["metadata"]["name"] == "pg-lws-test-lws-test-uid"
    assert pg["spec"]["minMember"] == 3
    assert pg["metadata"]["ownerReferences"] == [{"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
                                                  "name": "lws-test", "uid": "lws-test-uid"}]  # fmt: skip
    assert subgroups(pg) == [("leader", 1, None, None), ("workers", 2, None, None)]
    assert labels == {"lws-test-0-1": "workers"}


def test_lws_TestGetPodGroupMetadata_LeaderReady_LeaderPod(monkeypatch) -> None:
    top = lws("lws-ready", "LeaderReady", 5)
    pgs, labels = made(chain(top, [member("lws-ready-0-0", {WI: "0"}, leader=True)]), monkeypatch)
    (pg,) = pgs.values()
    assert pg["spec"]["minMember"] == 1 and subgroups(pg) == [("leader", 1, None, None)]
    assert labels == {"lws-ready-0-0": "leader"}


def test_lws_TestGetPodGroupMetadata_LeaderReady_WorkerPod(monkeypatch) -> None:
    top = lws("lws-ready", "LeaderReady", 5)
    m = member("lws-ready-0-2", {GI: "0", WI: "2"}, annotations={SIZE: "5"}, node_name="worker-node")
    pgs, labels = made(chain(top, [m]), monkeypatch)
    (pg,) = pgs.values()
    assert pg["metadata"]["name"] == "pg-lws-ready-lws-ready-uid-group-0"
    assert pg["spec"]["minMember"] == 5 and subgroups(pg) == [("leader", 1, None, None), ("workers", 4, None, None)]
    assert labels == {"lws-ready-0-2": "workers"}


def test_lws_TestGetPodGroupMetadata_GroupIndex_Label(monkeypatch) -> None:
    top = lws("lws-grouped", "LeaderCreated", 2)
    pgs, _ = made(chain(top, [member("p", {GI: "1"})], group="1"), monkeypatch)
    assert list(pgs) == ["pg-lws-grouped-lws-grouped-uid-group-1"]


@pytest.mark.parametrize(("case", "size", "pod_name", "worker", "expected", "label"), [
    ("TestGetPodGroupMetadata_SubGroups_LeaderPod", 3, "lws-subgroups-0-0", "0",
     [("leader", 1, None, None), ("workers", 2, None, None)], "leader"),
    ("TestGetPodGroupMetadata_SubGroups_WorkerPod", 3, "lws-subgroups-0-1", "1",
     [("leader", 1, None, None), ("workers", 2, None, None)], "workers"),
    ("TestGetPodGroupMetadata_SubGroups_OnlyLeader", 1, "lws-single-0-0", "0", [("leader", 1, None, None)], "leader"),
])  # fmt: skip
def test_lws_subgroups(case: str, size: int, pod_name: str, worker: str, expected: list, label: str, monkeypatch) -> None:
    top = lws(pod_name.rsplit("-", 2)[0], "LeaderCreated", size)
    pgs, labels = made(chain(top, [member(pod_name, {WI: worker}, leader=worker == "0")]), monkeypatch)
    (pg,) = pgs.values()
    assert (pg["spec"]["minMember"], subgroups(pg)) == (size, expected), case
    assert labels == {pod_name: label}, case


# -- lws_grouper_test.go: buildSubGroups with segments ------------------------------------------
SEG_LW_5_2 = [("segment-0", 3, None, None), ("segment-1", 2, None, None), ("leader", 1, "segment-0", None),
              ("workers", 2, "segment-0", None)]  # fmt: skip
SEG_EX_5_2 = [("leader", 1, None, None), ("segment-0", 2, None, None), ("segment-1", 2, None, None)]


@pytest.mark.parametrize(("case", "size", "segment", "policy", "worker", "expected", "label"), [
    ("TestBuildSubGroups_Segmentation_Divisible_LeaderPod", 5, 2, None, "0", SEG_LW_5_2, "leader"),
    ("TestBuildSubGroups_Segmentation_Divisible_WorkerInFirstSegment", 5, 2, None, "1", SEG_LW_5_2, "workers"),
    ("TestBuildSubGroups_Segmentation_Divisible_WorkerInLaterSegment", 5, 2, None, "3", SEG_LW_5_2, "segment-1"),
    ("TestBuildSubGroups_Segmentation_NotDivisible_LeaderPod", 4, 2, None, "0",
     [("segment-0", 2, None, None), ("segment-1", 2, None, None), ("leader", 1, "segment-0", None),
      ("workers", 1, "segment-0", None)], "leader"),
    ("TestBuildSubGroups_Segmentation_LeaderExcluded_WorkerInFirstSegment", 5, 2, "LeaderExcluded", "1", SEG_EX_5_2,
     "segment-0"),
    ("TestBuildSubGroups_Segmentation_LeaderExcluded_WorkerInLaterSegment", 5, 2, "LeaderExcluded", "3", SEG_EX_5_2,
     "segment-1"),
])  # fmt: skip
def test_lws_segments(case: str, size: int, segment: int, policy, worker: str, expected: list, label: str,
                      monkeypatch) -> None:  # fmt: skip
    top = lws("lws-seg", "LeaderCreated", size, segment=segment, policy=policy)
    name = f"lws-seg-0-{worker}"
    pgs, labels = made(chain(top, [member(name, {WI: worker}, leader=worker == "0")]), monkeypatch)
    (pg,) = pgs.values()
    assert subgroups(pg) == expected, case
    assert labels == {name: label}, case


def test_lws_TestBuildSubGroups_Segmentation_TopologyPreferredOnly_LeaderIncluded_NotDivisible(monkeypatch) -> None:
    tc = {"topology": "rack", "requiredTopologyLevel": "", "preferredTopologyLevel": "node"}
    top = lws("lws-seg", "LeaderCreated", 5, segment=3, topology=tc)
    pgs, labels = made(chain(top, [member("lws-seg-0-1", {WI: "1"})]), monkeypatch)
    (pg,) = pgs.values()
    assert subgroups(pg) == [("segment-0", 3, None, tc), ("segment-1", 2, None, tc), ("leader", 1, "segment-0", None),
                             ("workers", 2, "segment-0", None)]  # fmt: skip
    assert labels == {"lws-seg-0-1": "workers"}


def test_lws_TestBuildSubGroups_Segmentation_TopologyBothPlacementKeys_LeaderExcluded(monkeypatch) -> None:
    tc = {"topology": "rack", "requiredTopologyLevel": "rack-unit", "preferredTopologyLevel": "node"}
    top = lws("lws-seg", "LeaderCreated", 5, segment=2, policy="LeaderExcluded", topology=tc)
    pgs, labels = made(chain(top, [member("lws-seg-0-1", {WI: "1"})]), monkeypatch)
    (pg,) = pgs.values()
    assert subgroups(pg) == [("leader", 1, None, None), ("segment-0", 2, None, tc), ("segment-1", 2, None, tc)]
    assert labels == {"lws-seg-0-1": "segment-0"}


def test_lws_TestBuildSubGroups_SegmentSizeFromWorkerTemplateAnnotation(monkeypatch) -> None:
    top = lws("lws-seg", "LeaderCreated", 5, annotations={kg.TOPOLOGY: "rack"})
    top["spec"]["leaderWorkerTemplate"]["workerTemplate"]["metadata"]["annotations"] = {
        kg.SEGMENT_SIZE: "2", kg.SEGMENT_REQUIRED: "rack-unit", kg.SEGMENT_PREFERRED: "node"}
    pgs, labels = made(chain(top, [member("lws-seg-0-1", {WI: "1"})]), monkeypatch)
    (pg,) = pgs.values()
    tc = {"topology": "rack", "requiredTopologyLevel": "rack-unit", "preferredTopologyLevel": "node"}
    assert subgroups(pg) == [("segment-0", 3, None, tc), ("segment-1", 2, None, tc), ("leader", 1, "segment-0", None),
                             ("workers", 2, "segment-0", None)]  # fmt: skip
    assert labels == {"lws-seg-0-1": "workers"}


# -- rules, on small clusters -------------------------------------------------------------------
def test_hub_maps_leaderworkerset_v1_only() -> None:
    assert kg.plugin_of("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet") == "lws"
    assert kg.plugin_of("leaderworkerset.x-k8s.io/v1alpha1", "LeaderWorkerSet") == "default"


def _group(top: dict, g: str, workers: int, node_name: str | None = None) -> list[dict]:
    ms = [member(f"{top['metadata']['name']}-{g}", {GI: g, WI: "0"}, leader=True, node_name=node_name)]
    ms += [member(f"{top['metadata']['name']}-{g}-{w}", {GI: g, WI: str(w)}) for w in range(1, workers + 1)]
    return chain(top, ms, group=g)


def test_lws_each_group_is_a_gang_through_the_leader_pod() -> None:
    """Two groups of 3 (a leader and 2 workers, the workers owned through the leader pod):
    a PodGroup per group, each all or nothing; 4 GPUs place one group (each pod a job of
    one before, the workers' owner chain stopping at the leader pod)."""
    top = lws("w", None, 3)
    objs = [node("a", gpu=4), kai_queue("q", -1), *_group(top, "0", 2), *_group(top, "1", 2)[2:]]
    out = decide(objs)
    assert sorted(jobs(out)) == ["default/pg-w-w-uid-group-0", "default/pg-w-w-uid-group-1"]
    assert len(out["bindings"]) == 3
    placed = {b["pod"] for b in out["bindings"]}
    assert placed in ({"default/w-0", "default/w-0-1", "default/w-0-2"}, {"default/w-1", "default/w-1-1", "default/w-1-2"})


def test_lws_leader_ready_leader_not_on_a_node_is_a_gang_of_one() -> None:
    """LeaderReady: the leader pod not yet on a node makes minMember 1, so it is placed
    alone on a node with 1 GPU (LeaderCreated: minMember 3, nothing placed)."""
    for startup, bound in (("LeaderReady", 1), ("LeaderCreated", 0)):
        top = lws("r", startup, 3)
        objs = [node("a", gpu=1), kai_queue("q", -1), *chain(top, [member("r-0", {GI: "0", WI: "0"}, leader=True)])]
        assert len(decide(objs)["bindings"]) == bound, startup


def test_lws_leader_ready_size_annotation_of_a_worker() -> None:
    """LeaderReady: a worker pod's leaderworkerset.sigs.k8s.io/size annotation is its
    minMember (not an integer: the LWS's size)."""
    for ann, expected in (("4", 4), ("x", 3)):
        top = lws("r", "LeaderReady", 3)
        objs = chain(top, [member("r-0-1", {GI: "0", WI: "1"}, annotations={SIZE: ann})])
        js = _read([*BASE, *objs]).cluster.jobs
        (job,) = [j for j in (js.values() if isinstance(js, dict) else js) if j.key.startswith("default/pg-")]
        assert job.min_available == expected, ann


@pytest.mark.parametrize(("mutate", "pointer"), [
    (lambda t: t["spec"]["leaderWorkerTemplate"].pop("size"), "/objects/4/spec/leaderWorkerTemplate"),
    (lambda t: t["spec"]["leaderWorkerTemplate"].__setitem__("size", 0), "/objects/4/spec/leaderWorkerTemplate/size"),
    (lambda t: t["spec"]["leaderWorkerTemplate"].__setitem__("size", "3"), "/objects/4/spec/leaderWorkerTemplate/size"),
    (lambda t: t["spec"].__setitem__("startupPolicy", "Sometime"), "/objects/4/spec/startupPolicy"),
    (lambda t: t["spec"].__setitem__("startupPolicy", 1), "/objects/4/spec/startupPolicy"),
    (lambda t: t["spec"]["leaderWorkerTemplate"].__setitem__("subGroupPolicy", {"subGroupSize": 1}),
     "/objects/4/spec/leaderWorkerTemplate/subGroupPolicy/subGroupSize"),
    (lambda t: t["spec"]["leaderWorkerTemplate"].__setitem__("subGroupPolicy", {"subGroupSize": 4}),
     "/objects/4/spec/leaderWorkerTemplate/subGroupPolicy/subGroupSize"),
    (lambda t: t["spec"]["leaderWorkerTemplate"].__setitem__("subGroupPolicy", {"subGroupSize": 2, "subGroupPolicyType": 3}),
     "/objects/4/spec/leaderWorkerTemplate/subGroupPolicy/subGroupPolicyType"),
    (lambda t: t["spec"]["leaderWorkerTemplate"].__setitem__("subGroupPolicy", {"subGroupSize": 2,
                                                                                "subGroupPolicyType": "LeaderExcluded"}),
     "/objects/4/spec/leaderWorkerTemplate/subGroupPolicy/subGroupPolicyType"),
    (lambda t: t["metadata"].__setitem__("annotations", {kg.SEGMENT_SIZE: "two"}),
     f"/objects/4/metadata/annotations/{kg.SEGMENT_SIZE.replace('/', '~1')}"),
    (lambda t: t["spec"]["leaderWorkerTemplate"].__setitem__("subGroupPolicy", {"subGroupSize": 2})
     or t["spec"]["leaderWorkerTemplate"].__setitem__("workerTemplate", "x"), "/objects/4/spec/leaderWorkerTemplate/workerTemplate"),
])  # fmt: skip
def test_lws_errors_are_a_422_at_the_field(mutate, pointer: str) -> None:
    """A size missing, not positive or not an integer, an unknown startupPolicy, a segment
    size at most 1 or past the size, a policy type that is not a string, LeaderExcluded
    with a size - 1 the segment does not divide (size 4, segments of 2), a segment size
    annotation that is not an integer, a worker template that is not an object under
    segments: KAI's error, a 422 at the field."""
    top = lws("e", None, 4 if pointer.endswith("subGroupPolicyType") else 3)
    mutate(top)
    e = refused(chain(top, [member("e-0-1", {GI: "0", WI: "1"})]))
    assert e.pointer == pointer, e.detail


@pytest.mark.parametrize(("labels", "pointer"), [
    ({GI: "0"}, "/metadata/labels"),
    ({GI: "0", WI: "x"}, f"/metadata/labels/{WI.replace('/', '~1')}"),
    ({GI: "0", WI: "9"}, f"/metadata/labels/{WI.replace('/', '~1')}"),
    ({GI: "0", WI: "-3"}, f"/metadata/labels/{WI.replace('/', '~1')}"),
])  # fmt: skip
def test_lws_worker_index_errors_are_a_422_on_the_pod(labels: dict, pointer: str) -> None:
    """Under segments a worker pod's worker index must be an integer (getPodSegment errs)
    and name a segment of its group (past them KAI's grouper indexes past its sub-group
    list and fails)."""
    top = lws("e", None, 5, segment=2)
    objs = chain(top, [member("e-0-1", labels)])
    e = refused(objs)
    assert e.pointer == "/objects/8" + pointer and e.obj["name"] == "e-0-1"


@pytest.mark.parametrize(("worker", "expected"), [("4", "leader"), ("6", "workers")])
def test_lws_leader_worker_index_one_or_two_segments_past_lands_in_leader_or_workers(worker: str, expected: str,
                                                                                    monkeypatch) -> None:  # fmt: skip
    """lws_grouper.go ``buildSubGroupsWithSegmentation``: under LeaderWorker the list Go
    indexes with the pod's segment is [segment-0, segment-1, leader, workers]
    (``handleLeaderInFirstSegment`` appends the two): size 4 in segments of 2 makes 2
    segments; worker 4 is segment 2 (4 // 2), ``subGroups[2]`` = leader; worker 6 is
    segment 3, workers. The PodGroup is made, the pod labelled so."""
    top = lws("x", None, 4, segment=2)
    pgs, labels = made(chain(top, [member(f"x-0-{worker}", {GI: "0", WI: worker})]), monkeypatch)
    assert labels == {f"x-0-{worker}": expected}
    assert [sg[0] for sg in subgroups(pgs["pg-x-x-uid-group-0"])] == ["segment-0", "segment-1", "leader", "workers"]


def test_lws_leader_worker_index_three_segments_past_panics_a_422() -> None:
    """lws_grouper.go ``buildSubGroupsWithSegmentation``: ``subGroups[podSegment]`` with
    segment 4 of a list of 4 (size 4, segments of 2, worker 8) panics: no PodGroup, a 422
    on the pod's worker-index label, as the grouper's other panics."""
    top = lws("x", None, 4, segment=2)
    e = refused(chain(top, [member("x-0-8", {GI: "0", WI: "8"})]))
    assert e.pointer == f"/objects/8/metadata/labels/{WI.replace('/', '~1')}" and "panics" in e.detail


def test_lws_leader_excluded_index_minus_one_lands_on_the_leader(monkeypatch) -> None:
    """LeaderExcluded: a worker of index -1 (segment -1, one past: index 0) is referenced by
    the leader sub-group, as Go's podSegment += 1 makes it."""
    top = lws("x", None, 5, segment=2, policy="LeaderExcluded")
    _, labels = made(chain(top, [member("x-0-1", {WI: "-1"})]), monkeypatch)
    assert labels == {"x-0-1": "leader"}


def test_lws_segments_bounded_by_max_objects() -> None:
    """Segments past the objects of the request are a 422 at the size, found before any is
    built (2^31 - 1 in segments of 2: a billion sub-groups)."""
    top = lws("b", None, 2**31 - 1, segment=2)
    e = refused(chain(top, [member("b-0-1", {WI: "1"})]))
    assert e.pointer == "/objects/4/spec/leaderWorkerTemplate/size" and "GANGPLANK_MAX_OBJECTS" in e.detail


def test_lws_size_wraps_as_go_int32() -> None:
    """int32(size): 2^32 + 2 is 2 (a leader and a worker)."""
    top = lws("z", None, 2**32 + 2)
    js = _read([*BASE, *chain(top, [member("z-0-1", {GI: "0", WI: "1"})])]).cluster.jobs
    (job,) = [j for j in (js.values() if isinstance(js, dict) else js) if j.key.startswith("default/pg-")]
    assert job.min_available == 2


def test_lws_the_same_answer_whatever_the_order_of_objects() -> None:
    top = lws("w", None, 3, segment=2)
    objs = [node("a", gpu=4), node("b", gpu=2), kai_queue("q", -1), *_group(top, "0", 2), *_group(top, "1", 2)[2:]]
    want = decide_in_any_order(objs, 3)
    assert sorted(jobs(want)) == ["default/pg-w-w-uid-group-0", "default/pg-w-w-uid-group-1"]


def test_lws_subgroups_of_a_request_are_bounded() -> None:
    """Gangplank's bound (SECURITY.md, *Limits*): the sub-groups of all the PodGroups KAI's
    pod-grouper makes for one request are at most 8 per object of the request, at least
    10,000. lws_grouper.go ``createSegmentSubgroups`` gives each group's PodGroup its own
    segments: 100 groups of size 200 in segments of 2 are 100 PodGroups of 100 segments
    plus leader and workers (10,200 sub-groups, for 103 objects): a 422 at the
    LeaderWorkerSet's size, naming it, whatever the order of the objects."""
    top = lws("big", None, 200, segment=2)
    pods = [_pod(f"big-{g}", top, {GI: str(g), WI: "0"}, None, None, True) for g in range(100)]
    for objs in ([*BASE, top, *pods], [*reversed(pods), top, *BASE]):
        with pytest.raises(InputError) as e:
            _read(objs)
        assert e.value.status == 422 and e.value.obj["name"] == "big" and "10000" in e.value.detail
        assert e.value.pointer == f"/objects/{objs.index(top)}/spec/leaderWorkerTemplate/size"


def test_lws_subgroups_within_the_bound_are_made(monkeypatch) -> None:
    """Below the bound every group's PodGroup is made: 10 groups of size 21 in segments of
    2 (10 segments, leader and workers each: 120 sub-groups)."""
    top = lws("ok", None, 21, segment=2)
    pods = [_pod(f"ok-{g}", top, {GI: str(g), WI: "0"}, None, None, True) for g in range(10)]
    pgs, _ = made([top, *pods], monkeypatch)
    assert len(pgs) == 10 and all(len(pg["spec"]["subGroups"]) == 12 for pg in pgs.values())


def test_lws_subgroups_bound_is_a_problem_json_422_over_http(client) -> None:
    """The bound over HTTP: a 422 application/problem+json at the LeaderWorkerSet's size."""
    from tests.kube import request

    top = lws("big", None, 200, segment=2)
    pods = [_pod(f"big-{g}", top, {GI: str(g), WI: "0"}, None, None, True) for g in range(100)]
    body = {**request([*BASE, top, *pods]), "config": {"profile": "kai", "actions": "allocate"}}
    r = client.post("/v1/decisions", json=body)
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["errors"][0]["pointer"] == f"/objects/{body['objects'].index(top)}/spec/leaderWorkerTemplate/size"
