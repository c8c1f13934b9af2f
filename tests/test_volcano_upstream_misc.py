"""Volcano's pod-resource, GPU-index, in-queue reservation, batch node-score and GPU-exclusivity
unit tests, transcribed as decisions (and ``/v1/scores``).

Source: volcano-sh/volcano at ed72c7c815a9fd547a787134676f73d42e9d049c:

* ``pkg/scheduler/api/pod_info_test.go`` (``TestGetGPUIndex``, ``TestGetPodResourceWithResize``)
* ``pkg/scheduler/plugins/util/util_test.go`` (``TestGetInqueueResource``), read with
  ``util.go`` and ``plugins/overcommit/overcommit.go``
* ``pkg/scheduler/plugins/util/nodescore/score_helper_test.go`` (``TestCalculatePluginScore``,
  ``TestNodeInfosForCandidateNodes``), read with ``score_helper.go`` and
  ``plugins/nodeorder/nodeorder.go``
* ``pkg/scheduler/plugins/deviceshare/gpuexclusive_test.go`` (every test), read with
  ``gpuexclusive.go``

How the cases map to decisions:

* ``GetPodResourceWithoutInitContainers`` (the function Go's test calls) has no caller in the
  scheduler; its resize rule is ``aggregateRegularContainerResourceRequests``', which
  ``GetPodResourceRequest`` shares, and that is a task's ``Resreq`` (``NewTaskInfo``), what a
  Running pod holds on its node (``NodeInfo.addTask``); for these pods, without init
  containers, the two differ only by the pod slot. Each row is a Running pod on a node of
  8 CPU / 16Gi; a pending pod asking exactly what Volcano leaves idle binds, and one asking
  1 CPU (or 1Gi) more does not. Volcano's scheduler (Kubernetes v1.36.1:
  ``InPlacePodVerticalScaling`` GA, ``PodLevelResources`` on) reads a resized container's
  ``status.containerStatuses[].resources`` (``determineContainerReqs``: with
  ``PodResizePending``/``Infeasible`` the status' requests and allocated resources, else the
  max of spec, status and allocated). Gangplank (``app/ingest/podrequest.py``: "Not
  modelled: in-place resize") reads the spec only: the one row where that differs (an
  infeasible resize, spec 2 CPU, status 1 CPU) is a strict xfail.
* ``GetGPUIndex`` is where a Running gpushare pod sits (``GPUDevices.AddResource``): a node of
  four cards of 10 (``volcano.sh/gpu-memory`` 40, ``gpu-number`` 4), a Running pod of 8
  annotated per row, and four pending pods of 6: each card the annotation names takes one fewer.
* ``GetInqueueResource`` is what overcommit (its only plugin here; factor 1) reserves at
  session open for a Running PodGroup whose allocated tasks reach minMember; a Pending
  PodGroup asking exactly what is left is in the answer's ``enqueued``, one asking one unit
  more is not.
* ``CalculatePluginScore`` / ``NodeInfosForCandidateNodes`` are nodeorder's
  ``BatchNodeOrderFn``: TaintToleration (the other nodeorder weights 0) is such a batch
  plugin with a NormalizeScore; ``/v1/scores`` gives nodeorder's score per node.
* ``GPUExclusiveRules`` (``deviceshare.GPUExclusiveRules``, with ``VGPUEnable``;
  ``app/plugins/gpuexclusive.py``): each row is transcribed as the decision Volcano gives on a
  one-, two- or four-card hami-core node whose cards rule-matching Running pods hold (their
  ``volcano.sh/vgpu-ids-new``). The rules of Go's tests: rule 0 ``{app: training, team: ml}``,
  rule 1 ``{workload: inference}``.

Not transcribed:

* ``pod_info_test.go TestGetPodResourceLimit``: ``GetPodResourceLimit`` is read only by the
  ``usage`` plugin (``estimator.go``), which Gangplank does not model (a warning); no decision
  shows a pod's limits through it.
* ``score_helper_test.go TestCalculatePluginScore`` "skips normalization when score
  extensions are absent" and ``TestCalculatePluginScoreReturnsNormalizeError``: of the
  plugins nodeorder and predicates pass to ``CalculatePluginScore``, InterPodAffinity,
  TaintToleration, PodTopologySpread and DynamicResources have score extensions (whose
  NormalizeScore fails only without the PreScore state, always written first); the one
  without, VolumeBinding (predicates), scores PVC bindings, which Gangplank does not model
  (volumes are placed as if bound): no decision here reaches either path.
  ``TestNodeInfosForCandidateNodes``' nil node and node missing from the session's node map
  are Go-internal (a candidate is always a session node).
* ``util_test.go TestGetInqueueResource`` "partial pods allocation": its 6 reserved pod
  slots show in no decision (enqueue never compares the pod slot); its CPU part is checked.
* ``api/sub_job_info_test.go TestGetSubJobMatchValues_Boundary``: already transcribed, all
  three rows, in ``tests/test_volcano_upstream_topology.py``
  (``test_a_pod_joins_a_sub_job_only_when_the_policy_gives_it_match_values``, ``Boundary/*``).
* ``gpuexclusive_test.go TestCapGPUsOnlyAffectsSpecifiedIndices`` and
  ``TestOnSessionOpenWrapsDevices``: the cap / restore of a device's ``Number`` and the
  wrapper's type are Go-internal; their effect (a reserved card takes no rule-matching pod, a
  card held at session open by a rule-matching pod is reserved) is in the rows below.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from app.devices import gpushare as gs
from app.devices import vgpu as vg
from app.main import app
from tests.kube import NOW, node, pod, podgroup, post_decision, request
from tests.test_deviceshare_plugin import conf, vgpu_node, vpod

CLIENT = TestClient(app, raise_server_exceptions=False)
VOLCANO = {"profile": "volcano"}


def bound(out: dict) -> dict[str, str]:
    return {b["pod"].split("/")[1]: b["node"] for b in out["bindings"]}


# -- pod_info_test.go TestGetPodResourceWithResize -----------------------------------------
def _resized(spec_cpu: str, spec_mem: str, status: tuple[str, str], *, pod_level: bool = False,
             condition: tuple[str, str] | None = None) -> dict:  # fmt: skip
    """The Go row's pod, Running on n1: container c1 requests ``spec``, its status ``status``."""
    p = pod("r", node="n1", cpu=spec_cpu, memory=spec_mem)
    p["spec"]["containers"][0]["name"] = "c1"
    if pod_level:
        p["spec"]["resources"] = {"requests": {"cpu": "4", "memory": "4Gi"}}
    p["status"]["containerStatuses"] = [{"name": "c1", "ready": True, "restartCount": 0, "image": "x", "imageID": "",
                                         "resources": {"requests": {"cpu": status[0], "memory": status[1]}}}]  # fmt: skip
    if condition:
        p["status"]["conditions"] = [{"type": condition[0], "status": "True", "reason": condition[1]}]
    return p


PENDING, IN_PROGRESS = "PodResizePending", "PodResizeInProgress"
RESIZE_ROWS = [
    # name, pod, what Volcano counts (cpu, GiB)
    ("pod with no pending resize", _resized("2", "2Gi", ("1", "1Gi")), (2, 2)),
    ("pod with pod-level resources and no pending resize", _resized("2", "2Gi", ("1", "1Gi"), pod_level=True), (4, 4)),
    pytest.param("pod with resize in infeasible", _resized("2", "2Gi", ("1", "1Gi"), condition=(PENDING, "Infeasible")),
                 (1, 1), marks=pytest.mark.xfail(strict=True, reason=(
                     "in-place resize not modelled: Volcano counts an infeasibly resized container by its "
                     "status.containerStatuses[].resources (determineContainerReqs), Gangplank by its spec"))),  # fmt: skip
    ("pod with pod-level resources and resize in infeasible",
     _resized("2", "2Gi", ("1", "1Gi"), pod_level=True, condition=(PENDING, "Infeasible")), (4, 4)),
    ("pod with resize in progress", _resized("1", "1Gi", ("1", "1Gi"), condition=(IN_PROGRESS, "Infeasible")), (1, 1)),
    ("pod with pod-level resources and resize in progress",
     _resized("1", "1Gi", ("1", "1Gi"), pod_level=True, condition=(IN_PROGRESS, "Infeasible")), (4, 4)),
    ("pod with resize in deferred", _resized("2", "2Gi", ("1", "1Gi"), condition=(PENDING, "Deferred")), (2, 2)),
    ("pod with resize in deferred (pod-level)",
     _resized("2", "2Gi", ("1", "1Gi"), pod_level=True, condition=(PENDING, "Deferred")), (4, 4)),
]


def _fits(running: dict, cpu: int, mem_gi: int) -> bool:
    objs = [node("n1", cpu="8", memory="16Gi", gpu=None), running, pod("p", cpu=str(cpu), memory=f"{mem_gi}Gi")]
    return bound(post_decision(objs, VOLCANO)) == {"p": "n1"}


@pytest.mark.parametrize(("name", "running", "held"), RESIZE_ROWS,
                         ids=[r.values[0] if hasattr(r, "values") else r[0] for r in RESIZE_ROWS])  # fmt: skip
def test_a_running_pod_holds_its_requests_as_resize_leaves_them(name: str, running: dict,
                                                                held: tuple[int, int]):  # fmt: skip
    """pod_info_test.go TestGetPodResourceWithResize (each row; Go names the last two rows alike,
    the pod-level one is told apart here): a Running pod holds its containers' requests as
    resize leaves them (``aggregateRegularContainerResourceRequests``, in
    ``GetPodResourceRequest``: the task's ``Resreq``) on its node: the pending pod asking
    exactly what is left binds, one asking 1 CPU or 1Gi more does not."""
    cpu, mem = 8 - held[0], 16 - held[1]
    assert _fits(running, cpu, mem)
    assert not _fits(running, cpu + 1, mem)
    assert not _fits(running, cpu, mem + 1)


# -- pod_info_test.go TestGetGPUIndex -------------------------------------------------------
def _share_node() -> dict:
    n = node("n1", gpu=None)
    n["status"]["allocatable"].update({gs.GPU_MEMORY: "40", gs.GPU_NUMBER: "4"})
    n["status"]["capacity"] = dict(n["status"]["allocatable"])
    return n


def _gpu_pod(name: str, mem: str, **kw: Any) -> dict:
    p = pod(name, **kw)
    r = p["spec"]["containers"][0]["resources"]
    r["limits"] = {gs.GPU_MEMORY: mem}
    r["requests"][gs.GPU_MEMORY] = mem
    return p


@pytest.mark.parametrize(("annotations", "placed"), [
    pytest.param(None, 4, id="pod without GPUIndex annotation"),
    pytest.param({gs.GPU_INDEX: ""}, 4, id="pod with empty GPUIndex annotation"),
    pytest.param({gs.GPU_INDEX: "0"}, 3, id="pod with single GPUIndex annotation"),
    pytest.param({gs.GPU_INDEX: "0,1,3"}, 1, id="pod with multiple GPUIndexes annotation"),
])  # fmt: skip
def test_a_running_gpushare_pod_sits_on_the_cards_its_gpu_index_names(annotations, placed):
    """pod_info_test.go TestGetGPUIndex (each row): ``GetGPUIndex`` is nil without the
    annotation or with an empty one (``Atoi("")`` fails), else the listed ids; the Running pod
    of 8 sits on each listed card (``AddResource``), so each leaves no room for a pod of 6."""
    running = _gpu_pod("r", "8", node="n1", annotations=annotations)
    objs = [_share_node(), running] + [_gpu_pod(f"p{i}", "6") for i in range(4)]
    out = post_decision(objs, conf({"deviceshare.GPUSharingEnable": True}))
    assert len(bound(out)) == placed


# -- gpuexclusive_test.go -------------------------------------------------------------------
RULES = [{"app": "training", "team": "ml"}, {"workload": "inference"}]
EXCL = {"deviceshare.VGPUEnable": True, "deviceshare.GPUExclusiveRules": RULES}
TRAIN, INFER = {"app": "training", "team": "ml"}, {"workload": "inference"}
REG = {1: "GPU-0,10,16384,NVIDIA-A100,true,hami-core:",
       2: "GPU-0,10,16384,NVIDIA-A100,true,hami-core:GPU-1,10,16384,NVIDIA-A100,true,hami-core:",
       4: "".join(f"GPU-{i},10,16384,NVIDIA-A100,true,hami-core:" for i in range(4))}


def _holder(name: str, labels: dict, gpu: int) -> dict:
    """A Running vGPU pod of 1000 MiB on card ``GPU-<gpu>`` (``volcano.sh/vgpu-ids-new``)."""
    return vpod(name, mem="1000", node="n1", labels=labels, annotations={vg.IDS: f"GPU-{gpu},NVIDIA,1000,0:;"})


def _exclusive(devices: int, holders: list[dict], pending: list[dict], args: dict = EXCL) -> dict:
    n = vgpu_node("n1", REG[devices], number=str(10 * devices), cores=str(100 * devices),
                  memory=str(16384 * devices))  # fmt: skip
    return post_decision([n, *holders, *pending], conf(args))


def _newcomer(labels: dict | None, name: str = "pod-c") -> dict:
    return vpod(name, mem="1000", labels=labels)


_ROW0 = [_holder("pod-a", TRAIN, 0)]  # TestReservedGPUsForPod's pod-a, alone on a one-card node
MATCH_ROWS = [
    # name, labels of the newcomer, bound by Volcano
    ("pod matches rule 0 (app=training, team=ml)", TRAIN, False),
    ("pod matches rule 0 with extra labels", {**TRAIN, "extra": "x"}, False),
    ("pod missing one label from rule 0", {"app": "training"}, True),
    ("pod has wrong value for rule 0", {"app": "training", "team": "other"}, True),
    ("pod matches rule 1 (workload=inference)", INFER, True),
    ("pod with nil labels matches nothing", None, True),
    ("matches both rules", {**TRAIN, **INFER}, False),
    ("unrelated pod (app=serving)", {"app": "serving"}, True),
]


@pytest.mark.parametrize(("name", "labels", "fits"), [pytest.param(*r, id=r[0]) for r in MATCH_ROWS])
def test_a_card_held_by_a_same_rule_pod_takes_no_rule_matching_pod(name, labels, fits):
    """gpuexclusive_test.go TestPodMatchesRule, TestMatchingRules, TestReservedGPUsForPod,
    TestNonMatchingPodDoesNotReserve (the rows as named): one card, held by pod-a (rule 0). A
    pod matches a rule when it carries every label of it with the same value (extra labels do
    not matter); a pod matching rule 0 sees pod-a's card reserved (Number capped at UsedNum):
    no card, not bound; a pod matching only rule 1, or none, shares the card (10 slots)."""
    out = _exclusive(1, _ROW0, [_newcomer(labels)])
    assert bound(out) == ({"pod-c": "n1"} if fits else {})


@pytest.mark.parametrize(("labels", "fits"), [
    pytest.param({**TRAIN, **INFER}, False, id="matches both rules: union of reserved GPUs"),
    pytest.param(TRAIN, True, id="rule 0 only: GPU 1 (rule 1's) is free to it"),
    pytest.param(INFER, True, id="rule 1 only: GPU 0 (rule 0's) is free to it"),
])  # fmt: skip
def test_a_pod_matching_several_rules_sees_the_union_of_their_cards(labels, fits):
    """gpuexclusive_test.go TestPodMatchingMultipleRulesSeesUnionOfReservedGPUs (and
    TestReservedGPUsForPod's same-rule-only part): GPU 0 held by pod-a (rule 0), GPU 1 by pod-b
    (rule 1). A pod matching both finds both reserved; one matching a single rule takes the
    other rule's card."""
    holders = [_holder("pod-a", TRAIN, 0), _holder("pod-b", INFER, 1)]
    out = _exclusive(2, holders, [_newcomer(labels)])
    assert bound(out) == ({"pod-c": "n1"} if fits else {})


def test_rule_matching_pods_take_a_card_each_and_reserve_it():
    """gpuexclusive_test.go TestEndToEndExclusive, step 1: four cards, GPU 0 held by pod-a
    (rule 0), GPU 1 by pod-b (rule 1): a training pod sees 3 cards. Four training pods: each
    placement adds its card to rule 0's reserved set (``Allocate`` records the pod's cards), so
    the first three take GPU 1, 2, 3 one each and the fourth finds none."""
    holders = [_holder("pod-a", TRAIN, 0), _holder("pod-b", INFER, 1)]
    out = _exclusive(4, holders, [_newcomer(TRAIN, f"t{i}") for i in range(4)])
    assert len(bound(out)) == 3


def test_unrelated_pods_see_every_card():
    """gpuexclusive_test.go TestEndToEndExclusive, step 2: a pod matching no rule sees all four
    cards (and shares them): four serving pods all bind."""
    holders = [_holder("pod-a", TRAIN, 0), _holder("pod-b", INFER, 1)]
    out = _exclusive(4, holders, [_newcomer({"app": "serving"}, f"s{i}") for i in range(4)])
    assert len(bound(out)) == 4


def _excl_warnings(out: dict) -> list[str]:
    return [w for w in out["warnings"] if "GPUExclusiveRules" in w]


def test_gpu_exclusive_rules_are_modelled_without_a_warning():
    """The README's promise: ``deviceshare.GPUExclusiveRules`` (read with VGPUEnable) is
    modelled: the rule applies (a second rule-0 pod finds pod-a's card reserved), no warning
    names the argument, and ``options.strictConfig`` accepts it."""
    out = _exclusive(1, _ROW0, [_newcomer(TRAIN)])
    assert bound(out) == {}
    assert not _excl_warnings(out), out["warnings"]
    n = vgpu_node("n1", REG[1], number="10", cores="100", memory="16384")
    strict = post_decision([n, *_ROW0, _newcomer(TRAIN)], conf(EXCL), options={"now": NOW, "strictConfig": True})
    assert bound(strict) == {} and not _excl_warnings(strict), strict


@pytest.mark.parametrize("raw", [
    pytest.param(None, id="nil input"),
    pytest.param("not a slice", id="wrong type"),
    pytest.param([], id="empty slice"),
    pytest.param([{}], id="empty map skipped"),
])  # fmt: skip
def test_rules_volcano_cannot_read_are_no_rules(raw):
    """gpuexclusive_test.go TestParseExclusiveRulesHandlesEdgeCases and TestLoadGPUExclusiveConfig
    "defaults with no rules": no rule is read, so Volcano wraps nothing
    (``wrapGPUDevicesForExclusivity`` returns): a rule-0 pod shares pod-a's card, and no warning
    is needed."""
    args = {"deviceshare.VGPUEnable": True, "deviceshare.GPUExclusiveRules": raw}
    out = _exclusive(1, _ROW0, [_newcomer(TRAIN)], args)
    assert bound(out) == {"pod-c": "n1"}
    assert not _excl_warnings(out), out["warnings"]


@pytest.mark.parametrize("rules", [
    pytest.param([{"app": "training", "team": "ml"}, {"workload": "inference"}], id="rules from a list of maps"),
    pytest.param([{"app": "training"}], id="one rule of one label"),
])  # fmt: skip
def test_rules_volcano_reads_are_applied(rules):
    """gpuexclusive_test.go TestLoadGPUExclusiveConfig "rules from map[string]interface{}" /
    "rules from map[interface{}]interface{}" (a YAML mapping decodes as the latter): the rules
    are read, so a second pod matching rule 0 is kept off pod-a's card."""
    args = {"deviceshare.VGPUEnable": True, "deviceshare.GPUExclusiveRules": rules}
    out = _exclusive(1, [_holder("pod-a", {"app": "training", "team": "ml"}, 0)],
                     [_newcomer({"app": "training", "team": "ml"})], args)  # fmt: skip
    assert bound(out) == {}


# -- plugins/util/util_test.go TestGetInqueueResource ---------------------------------------
GPU = "nvidia.com/gpu"
OVERCOMMIT = {"actions": "enqueue", "tiers": [{"plugins": [
    {"name": "overcommit", "arguments": {"overcommit-factor": 1.0}}]}]}  # fmt: skip


def _running_group(min_res: dict[str, str], min_member: int, pods: list[dict[str, Any]],
                   waiting: int = 0) -> list[dict]:  # fmt: skip
    """A Running PodGroup ``run`` with ``min_res`` and its Running pods on n1 (Go's ``allocated``);
    ``waiting`` Pending pods of it (1 CPU each) besides."""
    pg = podgroup("run", min_member=min_member, phase="Running")
    pg["spec"]["minResources"] = min_res
    out = [pg] + [pod(f"w{i}", group="run", cpu="1", memory=None) for i in range(waiting)]
    for i, res in enumerate(pods):
        out.append(pod(f"r{i}", node="n1", group="run", cpu=res.get("cpu"), memory=res.get("memory"),
                       gpu=res.get("gpu")))  # fmt: skip
    return out


def _enqueued(objs: list[dict], asks: dict[str, str]) -> bool:
    pg = podgroup("new", phase="Pending")
    pg["spec"]["minResources"] = asks
    n = node("n1", cpu="16", memory="16384", gpu=16)
    out = post_decision([n, *objs, pg, pod("w", group="new", cpu="1", memory=None)], OVERCOMMIT)
    return out["enqueued"] == ["default/new"]


@pytest.mark.parametrize(("min_res", "min_member", "pods", "free"), [
    pytest.param({"cpu": "4", "memory": "4096", GPU: "8"}, 0, [], {"cpu": 12, "memory": 12288, GPU: 8},
                 id="nothing allocated yet: full request reserved"),
    pytest.param({"cpu": "4", "memory": "4096", GPU: "8"}, 1, [{"cpu": "1", "memory": "1024", "gpu": 4}],
                 {"cpu": 12, "memory": 12288, GPU: 8}, id="partial GPU allocation: remainder reserved"),
    pytest.param({GPU: "2"}, 1, [{"cpu": None, "memory": None, "gpu": 2}], {GPU: 14},
                 id="GPU fully allocated: no scalar reserved"),
    pytest.param({"cpu": "4", "pods": "10"}, 4, [{"cpu": "250m", "memory": None}] * 4, {"cpu": 12},
                 id="partial pods allocation: remainder reserved"),
])  # fmt: skip
def test_a_running_group_reserves_what_its_min_resources_still_lack(min_res, min_member, pods, free):
    """util_test.go TestGetInqueueResource (each row): overcommit (factor 1) reserves, for a
    Running PodGroup whose allocated tasks reach minMember, ``max(minResources − allocated, 0)``
    per resource (GPUs in the same milli units on both sides). On a node of 16 CPU, 16384 bytes
    and 16 GPUs, a Pending PodGroup asking exactly what is left (total − used − reserved) is
    enqueued, one asking one unit more of any resource is not. (The pods row's 6 reserved pod
    slots show in no decision: enqueue never compares the pod slot; its CPU part is checked.)"""
    objs = _running_group(min_res, min_member, pods)
    _check_reservation(objs, free)


def _check_reservation(objs: list[dict], free: dict[str, int]) -> None:
    for name, amount in free.items():
        assert _enqueued(objs, {name: str(amount)}), name
        assert not _enqueued(objs, {name: str(amount + 1)}), name


def test_a_running_group_with_nothing_placed_reserves_its_whole_min_resources():
    """util_test.go TestGetInqueueResource "nothing allocated yet: full request reserved", with
    the job's one pod Pending (Go's job has no task at all: that form is the first row above):
    minMember 0 is reached with nothing allocated, so all of minResources is reserved."""
    objs = _running_group({"cpu": "4", "memory": "4096", GPU: "8"}, 0, [], waiting=1)
    _check_reservation(objs, {"cpu": 12, "memory": 12288, GPU: 8})


# -- plugins/util/nodescore/score_helper_test.go ---------------------------------------------
def _taint_conf(weight: int) -> dict:
    """predicates and nodeorder with only TaintToleration weighted (a batch score plugin with
    NormalizeScore, scored through ``CalculatePluginScore``)."""
    args = {f"{k}.weight": 0 for k in ("leastrequested", "mostrequested", "nodeaffinity", "podaffinity",
                                       "balancedresource", "imagelocality", "podtopologyspread")}  # fmt: skip
    args["tainttoleration.weight"] = weight
    return {"actions": "allocate", "tiers": [{"plugins": [{"name": "predicates"},
                                                          {"name": "nodeorder", "arguments": args}]}]}  # fmt: skip


def _soft_tainted(name: str, n: int) -> dict:
    return node(name, gpu=None, taints=[{"key": f"k{i}", "value": "v", "effect": "PreferNoSchedule"} for i in range(n)])


def _nodeorder_scores(objs: list[dict], conf_: dict, nodes: list[str] | None = None) -> dict[str, float]:
    body = request(objs, config=conf_, job="default/w", **({"nodes": nodes} if nodes else {}))
    r = CLIENT.post(
        "/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return {n: v["plugins"]["nodeorder"] for n, v in r.json()["nodes"].items()}


@pytest.mark.parametrize(("weight", "want"), [(2, {"a": 200.0, "b": 100.0, "c": 0.0}),
                                              (1, {"a": 100.0, "b": 50.0, "c": 0.0})])  # fmt: skip
def test_a_batch_score_is_normalized_then_weighted(weight, want):
    """score_helper_test.go TestCalculatePluginScore "normalizes scores before applying weight":
    TaintToleration's raw scores (intolerable PreferNoSchedule taints: 0, 1, 2) go through its
    NormalizeScore (reversed over the largest: 100, 50, 0) and only then times the weight."""
    objs = [_soft_tainted("a", 0), _soft_tainted("b", 1), _soft_tainted("c", 2), pod("w")]
    assert _nodeorder_scores(objs, _taint_conf(weight)) == want


def test_a_batch_score_is_normalized_over_the_candidate_nodes_only():
    """score_helper_test.go TestNodeInfosForCandidateNodes: ``BatchNodeOrderFn`` scores the
    candidate nodes only (``NodeInfosForCandidateNodes`` keeps the candidates, in order, that
    the session's node map has), so the normalization's largest raw score is theirs: with a
    and b the candidates, b's one taint is the largest: a 100, b 0 (× 2); c is not scored."""
    objs = [_soft_tainted("a", 0), _soft_tainted("b", 1), _soft_tainted("c", 2), pod("w")]
    assert _nodeorder_scores(objs, _taint_conf(2), nodes=["a", "b"]) == {"a": 200.0, "b": 0.0}
