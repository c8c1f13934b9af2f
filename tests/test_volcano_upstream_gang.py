"""Volcano's gang-aware eviction tests (``gangpreempt`` / ``gangreclaim``), transcribed end to end.

Source: volcano-sh/volcano at ed72c7c815a9fd547a787134676f73d42e9d049c:

* ``pkg/scheduler/actions/gangpreempt/gangpreempt_test.go``
* ``pkg/scheduler/actions/gangreclaim/gangreclaim_test.go``
* ``pkg/scheduler/actions/utils/bundle_test.go``, ``simulate_test.go``, ``util_test.go``
* ``pkg/scheduler/plugins/network-topology-aware/network_topology_aware_test.go``
  (``TestReverseAndCapEvictionGradients``, the eviction cases of
  ``TestHyperNodeGradientPreFiltering``, ``TestHyperNodeGradientForSubJobFn_NoSubJobPolicyRespectsHardTopology``)

Go's tests call the helpers directly (``selectDomainBundles``, ``CreateJobBundles``,
``SortBundlesFor*``, ``BuildNominationPlanInDomain``...). Here each rule is shown in the one
place a client can see it: a decision. Every case is a cluster of Nodes, Pods, Volcano
PodGroups, Queues and HyperNodes posted to ``/v1/decisions`` with the ``volcano`` profile
(or, where the rule needs HyperNode gradients, Volcano's default tiers plus
``network-topology-aware``, as a posted ``volcano-scheduler.conf``), and the answer's
evictions and nominations are compared with what the Go code does on that cluster:

* ``gangpreempt`` / ``gangreclaim`` try the domains in gradient order; in a domain they add
  bundles (sorted: Safe before Whole; then reverse JobOrder for preempt, or the victim queue
  order for reclaim; then ROI; then job UID) one at a time, **whole**, until idle + releasing
  + the selected victims cover the need, then simulate; the first simulation that pipelines
  the job commits every selected victim (no trim) and nominates the preemptor's pods;
* ``JobOrderFn`` falls back to creation time then UID, so in preempt the victim job order is
  total and ROI never decides between two jobs; in reclaim ROI decides inside one queue;
* the actions do not check whether the job fits without victims: a domain without victims is
  skipped, a domain with victims evicts the first bundle that covers the need.

Go's ``testTask`` gives each task 1 CPU and nothing else; so do the pods here (no memory, no
GPU). Go's ``Priority`` on a task is the pod's ``spec.priority``; on a job it is the
PodGroup's priority class. Go's test plugin that permits every candidate stands for the
``volcano`` profile's UnifiedEvictable plugins (``priority``, ``gang``, ``conformance``), which
permit every candidate of these cases.

Not transcribed (no decision shows the rule):

* ``TestPickDomainsFromGradients_MaxDomainsAndDedup`` (both actions), the de-duplication: a
  HyperNode occurs in one gradient only, so no decision has a domain twice. The cap is
  transcribed (``test_max_domains_caps_the_domains_tried``) where it cuts between tiers; a cut
  inside one tier keeps a subset chosen by Go's map iteration over a HyperNode's children
  (random from run to run), which no test can expect.
* ``TestReverseAndCapEvictionGradients``'s ``maxHyperNodesForEviction: 0`` branch: the
  plugin's constructor turns ``0`` into 8 (``getMaxHyperNodesForEviction``), so it is
  unreachable from a configuration; the configured ``0`` is shown to keep widest-first.
* ``TestSortBundlesForPreempt_TypePriorityAndROI``'s ROI part (two Whole bundles, the better
  ROI first): in ``gangpreempt`` the victim job order decides first and is total
  (``JobOrderFn`` falls back to creation time, then UID), and one job has one Whole bundle
  per domain, so ROI never orders two bundles there; the Safe-before-Whole part is
  transcribed, and ROI is shown where it decides (reclaim, one queue).
* ``TestSelectBundles_RespectsAllowWhole``: ``SelectBundles`` is called by neither action;
  the rule it checks (no Whole bundle when ``allowWholeBundle`` is false) is the actions' own
  and is transcribed from ``TestSelectDomainVictims_RespectAllowWholeBundle``.
* ``TestBuildNominationPlanInDomain_Success`` (a plan without victims): the actions never ask
  for one, a domain without bundles is skipped (shown by
  ``test_a_nominated_node_outside_the_domain_is_ignored``).
* ``TestBuildNominationPlanInDomain_Guards``: nil session / job / domain, which an action
  never passes (a domain without a HyperNode falls back to the cluster's top one).
* ``TestCollectPendingTasksForJobStartup_WorksheetOrder``: the order of the pending tasks of
  a starting job; the actions use them only as a sum (the need) and the simulation re-reads
  the worksheet itself.
* ``TestHyperNodeGradientPreFiltering``'s eight allocation cases (purpose ``allocate``): they
  bear on allocate's HyperNode search, not on eviction domains.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from app.main import app
from tests.kube import hypernode, node, pod, podgroup, priority_class, queue, request

CLIENT = TestClient(app, raise_server_exceptions=False)
PREEMPTABLE = "volcano.sh/preemptable"  # v1beta1.PodPreemptable
CLASSES = [priority_class("p10", 10), priority_class("p20", 20), priority_class("p100", 100)]


def volcano_tiers(*, nta: bool = False, gang_starving: bool = True) -> list[dict]:
    """The ``volcano`` profile's tiers as a posted ``volcano-scheduler.conf``; ``nta`` adds
    ``network-topology-aware`` (the profile has no gradient plugin); ``gang_starving: False``
    turns off gang's JobStarving (``enableJobStarving: false``)."""
    gang: dict[str, Any] = {"name": "gang", "enablePreemptable": False}
    if not gang_starving:
        gang["enableJobStarving"] = False
    second = [{"name": "overcommit"}, {"name": "drf", "enablePreemptable": False}, {"name": "predicates"},
              {"name": "proportion"}, {"name": "nodeorder"}, {"name": "binpack"}]  # fmt: skip
    if nta:
        second.append({"name": "network-topology-aware"})
    return [{"plugins": [{"name": "priority"}, gang, {"name": "conformance"}]}, {"plugins": second}]


# -- builders ------------------------------------------------------------------------------
def N(name: str, cpu: str = "1") -> dict:
    return node(name, cpu=cpu, memory="8Gi", gpu=None, pods="110")


def T(name: str, group: str, *, node: str | None = None, cpu: str = "1", prio: int | None = None,
      pc: str | None = None, labels: dict[str, str] | None = None, preemptable: bool | None = None,
      phase: str | None = None, nominated: str | None = None, critical: bool = False,
      extra_spec: dict | None = None) -> dict:  # fmt: skip
    """Go's ``testTask``: a pod of ``group`` in namespace ``ns`` requesting ``cpu`` only; ``prio``
    is the task's own priority (``spec.priority``); ``preemptable`` the pod's annotation."""
    ann = {PREEMPTABLE: str(preemptable).lower()} if preemptable is not None else None
    out = pod(name, ns="ns", node=node, cpu=cpu, memory=None, group=group, priority=prio, labels=labels,
              annotations=ann, phase=phase, extra_spec=extra_spec,
              priority_class="system-node-critical" if critical else pc)  # fmt: skip
    if nominated:
        out["status"]["nominatedNodeName"] = nominated
    return out


def PG(name: str, *, q: str = "q1", min_member: int = 1, pc: str | None = "p10", phase: str = "Running",
       ann: dict[str, str] | None = None, mtm: dict[str, int] | None = None, sgp: list[dict] | None = None,
       nt: dict | None = None, created: str = "2026-11-23T09:00:00Z",
       min_resources: dict[str, str] | None = None) -> dict:  # fmt: skip
    pg = podgroup(name, ns="ns", queue=q, min_member=min_member, priority_class=pc, phase=phase,
                  annotations=ann, min_task_member=mtm, sub_group_policy=sgp, network_topology=nt,
                  created=created)  # fmt: skip
    if min_resources:
        pg["spec"]["minResources"] = min_resources
    return pg


def SGP(name: str, key: str, size: int, min_sub_groups: int, nt: dict | None = None) -> dict:
    out: dict[str, Any] = {"name": name, "subGroupSize": size, "minSubGroups": min_sub_groups, "matchLabelKeys": [key]}
    if nt:
        out["networkTopology"] = nt
    return out


def preemptor(n: int, *, q: str = "q1", cpu: str = "1", nt: dict | None = None, name: str = "p",
              min_resources: dict[str, str] | None = None, **pod_kw: Any) -> list[dict]:  # fmt: skip
    """The starving job: ``n`` pending pods of ``cpu`` each, minMember ``n``, priority 100."""
    objs = [PG(name, q=q, min_member=n, pc="p100", phase="Inqueue", nt=nt, created="2026-11-23T11:00:00Z",
               min_resources=min_resources)]  # fmt: skip
    objs += [T(f"{name}-{i}", name, cpu=cpu, pc="p100", **pod_kw) for i in range(n)]
    return objs


def config(action: str, *, actions: str | None = None, nta: bool = False, tiers: list[dict] | None = None,
           **args: Any) -> dict:  # fmt: skip
    conf: dict[str, Any] = {"actions": actions or f"allocate, {action}"}
    if nta or tiers:
        conf["tiers"] = tiers or volcano_tiers(nta=True)
    else:
        conf["profile"] = "volcano"
    if args:
        conf["configurations"] = [{"name": action, "arguments": args}]
    return conf


def decide(objects: list[dict], conf: dict) -> dict:
    """POST /v1/decisions; the answer must be a 200."""
    r = CLIENT.post("/v1/decisions", content=orjson.dumps(request(objects, config=conf)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def evicted(out: dict) -> list[str]:
    return sorted(e["pod"].removeprefix("ns/") for e in out["evictions"])


def nominated(out: dict) -> dict[str, str]:
    return {n["pod"].removeprefix("ns/"): n["node"] for n in out["nominations"]}


def no_warnings(out: dict) -> None:
    assert out["warnings"] == [], out["warnings"]


def one_victim(*, pg_ann: dict[str, str] | None = None, q: str = "q1") -> list[dict]:
    """Go's ``selectDomainVictims`` fixture: node n1 (1 CPU) runs ``victim`` (job priority 10,
    minAvailable 1: one running task, so only a Whole bundle); the preemptor needs 1 CPU."""
    return [N("n1"), queue("q1"), *CLASSES, PG("victim", q=q, ann=pg_ann), T("victim", "victim", node="n1")]


# -- gangpreempt_test.go / gangreclaim_test.go ---------------------------------------------
def test_gangpreempt_without_a_gradient_plugin_the_cluster_is_the_one_domain():
    """gangpreempt_test.go TestPickDomainsFromGradients_Fallback (with util_test.go
    TestGetCandidateDomains_EmptyGradient_NonHardTopologyFallbackToRoot, simulate_test.go
    TestPickBestNodeForTask_FallsBackFutureIdleGroup): no gradient plugin, a job without a hard
    topology: the cluster's top HyperNode is the domain; the preemptor goes to the node its
    victim frees (the only future-idle one)."""
    out = decide(one_victim() + preemptor(1), config("gangpreempt"))
    assert evicted(out) == ["victim"]
    assert nominated(out) == {"p-0": "n1"}
    no_warnings(out)


@pytest.mark.parametrize("allow, victims", [(False, []), (True, ["victim"])])
def test_gangpreempt_allow_whole_bundle_false_takes_no_whole_bundle(allow, victims):
    """gangpreempt_test.go TestSelectDomainVictims_RespectAllowWholeBundle: the victim job has
    minAvailable 1 and one running task, so its only bundle is Whole; ``allowWholeBundle:
    false`` leaves it, true takes it."""
    out = decide(one_victim() + preemptor(1), config("gangpreempt", allowWholeBundle=allow))
    assert evicted(out) == victims
    assert nominated(out) == ({"p-0": "n1"} if victims else {})
    no_warnings(out)


def test_gangpreempt_reads_max_domains_and_allow_whole_bundle():
    """gangpreempt_test.go TestParseArguments: ``maxDomains: 3`` and ``allowWholeBundle: false``
    are both read (no "not read" warning); the latter keeps the Whole-only victim."""
    out = decide(one_victim() + preemptor(1), config("gangpreempt", maxDomains=3, allowWholeBundle=False))
    assert evicted(out) == []
    no_warnings(out)


@pytest.mark.parametrize("value", [0, -1], ids=["zero", "negative"])
def test_gangpreempt_max_domains_zero_or_negative_falls_back_to_8(value):
    """gangpreempt_test.go TestParseArguments_InvalidMaxDomainsFallsBackToDefault (zero,
    negative): the action still searches (8 domains), as with the default."""
    out = decide(one_victim() + preemptor(1), config("gangpreempt", maxDomains=value))
    assert evicted(out) == ["victim"]
    assert nominated(out) == {"p-0": "n1"}


def test_gangpreempt_skips_a_victim_job_whose_podgroup_says_not_preemptable():
    """gangpreempt_test.go TestSelectDomainVictims_RespectVictimJobPreemptable: the victim's
    PodGroup carries ``volcano.sh/preemptable: "false"`` (its pod says nothing)."""
    out = decide(one_victim(pg_ann={PREEMPTABLE: "false"}) + preemptor(1), config("gangpreempt"))
    assert evicted(out) == []
    assert nominated(out) == {}


def test_gangpreempt_takes_a_victim_job_whose_podgroup_preemptability_is_unset():
    """gangpreempt_test.go TestSelectDomainVictims_AllowVictimJobWhenPreemptableUnset: a
    PodGroup without the annotation or label is preemptable for the gang actions (Volcano's
    ``JobInfo.Preemptable`` is false for it; ``IsJobPreemptableForGangEviction`` allows it)."""
    out = decide(one_victim(pg_ann={}) + preemptor(1), config("gangpreempt"))
    assert evicted(out) == ["victim"]


def reclaim_cluster(*, pg_ann: dict[str, str] | None = None, with_victim: bool = True,
                    with_other: bool = True) -> list[dict]:  # fmt: skip
    """Go's gangreclaim fixture: node n1 (2 CPU) runs ``victim`` of queue q2 (reclaimable) and
    ``other`` of queue q3 (``reclaimable: false``); the reclaimer of q1 needs 1 CPU. Queue
    weights 4/1/1 make q1 deserve its 1 CPU (so it may reclaim) and q2, q3 deserve 0.5 each
    (both overused), so only ``reclaimable`` tells the two victims apart."""
    objs = [N("n1", cpu="2"), queue("q1", weight=4), queue("q2", weight=1, reclaimable=True),
            queue("q3", weight=1, reclaimable=False), *CLASSES]  # fmt: skip
    if with_victim:
        objs += [PG("victim", q="q2", ann=pg_ann), T("victim", "victim", node="n1")]
    else:
        objs += [PG("filler", q="q2", ann={PREEMPTABLE: "false"}), T("filler", "filler", node="n1")]
    if with_other:
        objs += [PG("other", q="q3"), T("other", "other", node="n1")]
    else:
        objs += [PG("filler2", q="q2", ann={PREEMPTABLE: "false"}), T("filler2", "filler2", node="n1")]
    return objs + preemptor(1, name="reclaimer")


def test_gangreclaim_without_a_gradient_plugin_the_cluster_is_the_one_domain():
    """gangreclaim_test.go TestPickDomainsFromGradients_Fallback: the cluster is the domain."""
    out = decide(reclaim_cluster(with_other=False), config("gangreclaim"))
    assert evicted(out) == ["victim"]
    assert nominated(out) == {"reclaimer-0": "n1"}
    no_warnings(out)


@pytest.mark.parametrize("allow, victims", [(False, []), (True, ["victim"])])
def test_gangreclaim_allow_whole_bundle_false_takes_no_whole_bundle(allow, victims):
    """gangreclaim_test.go TestParseArguments (``allowWholeBundle: false``, ``maxDomains: 3``)."""
    out = decide(reclaim_cluster(with_other=False), config("gangreclaim", maxDomains=3, allowWholeBundle=allow))
    assert evicted(out) == victims
    no_warnings(out)


@pytest.mark.parametrize("value", [0, -1], ids=["zero", "negative"])
def test_gangreclaim_max_domains_zero_or_negative_falls_back_to_8(value):
    """gangreclaim_test.go TestParseArguments_InvalidMaxDomainsFallsBackToDefault."""
    out = decide(reclaim_cluster(with_other=False), config("gangreclaim", maxDomains=value))
    assert evicted(out) == ["victim"]


def test_gangreclaim_takes_victims_of_other_reclaimable_queues_only():
    """gangreclaim_test.go TestSelectDomainVictims_ReclaimableCrossQueueOnly: of ``victim``
    (q2, reclaimable) and ``other`` (q3, not reclaimable) only ``victim`` is a candidate."""
    out = decide(reclaim_cluster(), config("gangreclaim"))
    assert evicted(out) == ["victim"]
    assert nominated(out) == {"reclaimer-0": "n1"}


def test_gangreclaim_never_takes_a_pod_of_a_queue_that_is_not_reclaimable():
    """gangreclaim_test.go TestSelectDomainVictims_ReclaimableCrossQueueOnly, the other half:
    with only q3's pod to take, nothing is reclaimed."""
    out = decide(reclaim_cluster(with_victim=False), config("gangreclaim"))
    assert evicted(out) == []
    assert nominated(out) == {}


def test_gangreclaim_takes_running_tasks_only():
    """gangreclaim_test.go TestSelectDomainVictims_ReclaimableCrossQueueOnly's candidate rule
    (gangreclaim.go ``selectDomainBundles``: ``taskOnNode.Status != api.Running`` is skipped;
    gangpreempt takes ``PreemptableStatus``, Bound or Running): q2's pod is bound to n1 but not
    yet running (phase Pending, ``nodeName`` set: Volcano's Bound), so it is no candidate."""
    objs = reclaim_cluster(with_other=False)
    victim = next(o for o in objs if o["kind"] == "Pod" and o["metadata"]["name"] == "victim")
    victim["status"]["phase"] = "Pending"
    out = decide(objs, config("gangreclaim"))
    assert evicted(out) == []


def test_gangreclaim_skips_a_victim_job_whose_podgroup_says_not_preemptable():
    """gangreclaim_test.go TestSelectDomainVictims_RespectVictimJobPreemptable."""
    out = decide(reclaim_cluster(pg_ann={PREEMPTABLE: "false"}, with_other=False), config("gangreclaim"))
    assert evicted(out) == []


def test_gangreclaim_takes_a_victim_job_whose_podgroup_preemptability_is_unset():
    """gangreclaim_test.go TestSelectDomainVictims_AllowVictimJobWhenPreemptableUnset."""
    out = decide(reclaim_cluster(pg_ann={}, with_other=False), config("gangreclaim"))
    assert evicted(out) == ["victim"]


# -- bundle_test.go: CreateJobBundles --------------------------------------------------------
def bundled_job(pods: list[tuple[str, int, dict[str, str]]], *, min_member: int, local: set[str],
                mtm: dict[str, int] | None = None, sgp: list[dict] | None = None) -> list[dict]:  # fmt: skip
    """Victim job ``v`` (priority 10): one 1-CPU node per pod; ``pods`` are (name, task
    priority, labels); a pod not in ``local`` says ``volcano.sh/preemptable: "false"`` so it is
    no candidate (Go's ``localTasks``) but counts for the gang."""
    objs: list[dict] = [queue("q1"), *CLASSES, PG("v", min_member=min_member, mtm=mtm, sgp=sgp)]
    for name, prio, labels in pods:
        objs += [N(f"n-{name}"), T(name, "v", node=f"n-{name}", prio=prio, labels=labels,
                                   preemptable=None if name in local else False)]  # fmt: skip
    return objs


def safe_and_whole() -> list[dict]:
    """TestCreateJobBundles_SafeAndWhole: minAvailable 3, worker min 3, five running workers
    a..e of task priority 0..4: Safe {a, b}, Whole {c, d, e}."""
    pods = [(c, i, {"volcano.sh/task-spec": "worker"}) for i, c in enumerate("abcde")]
    return bundled_job(pods, min_member=3, mtm={"worker": 3}, local=set("abcde"))


@pytest.mark.parametrize("need, victims", [(1, ["a", "b"]), (2, ["a", "b"])])
def test_safe_bundle_is_the_gang_surplus_lowest_task_priority_first(need, victims):
    """bundle_test.go TestCreateJobBundles_SafeAndWhole: the two tasks above minAvailable (and
    above the role's minimum) are Safe, lowest task priority first; the Safe bundle is
    evicted as one, even for a need of one task (gangpreempt.go ``preemptJobInDomains``
    appends every task of a bundle; the boundary is not trimmed: volcano#5984)."""
    out = decide(safe_and_whole() + preemptor(need), config("gangpreempt"))
    assert evicted(out) == victims
    assert sorted(nominated(out)) == [f"p-{i}" for i in range(need)]


def test_no_whole_bundle_when_the_need_exceeds_the_safe_surplus_and_whole_is_off():
    """bundle_test.go TestCreateJobBundles_SafeAndWhole: c, d, e are Whole: with
    ``allowWholeBundle: false`` a need of 3 cannot be met."""
    out = decide(safe_and_whole() + preemptor(3), config("gangpreempt", allowWholeBundle=False))
    assert evicted(out) == []


def test_a_whole_bundle_is_evicted_whole():
    """bundle_test.go TestCreateJobBundles_SafeAndWhole with gangpreempt.go
    ``preemptJobInDomains``: a need of 3 takes Safe {a, b}, then the Whole bundle {c, d, e}
    as one: every task of the selected bundles is evicted (no trim)."""
    out = decide(safe_and_whole() + preemptor(3), config("gangpreempt"))
    assert evicted(out) == ["a", "b", "c", "d", "e"]
    assert sorted(nominated(out)) == ["p-0", "p-1", "p-2"]


def no_role_min() -> list[dict]:
    """TestCreateJobBundles_NoTaskMinAvailableTreatsAllRolesAsUnconstrained: minAvailable 2, four
    running workers a..d (task priority 0..3), no role minimum: Safe {a, b}, Whole {c, d}."""
    pods = [(c, i, {"volcano.sh/task-spec": "worker"}) for i, c in enumerate("abcd")]
    return bundled_job(pods, min_member=2, local=set("abcd"))


@pytest.mark.parametrize("need, victims", [(2, ["a", "b"]), (3, [])])
def test_a_role_without_a_minimum_is_unconstrained(need, victims):
    """bundle_test.go TestCreateJobBundles_NoTaskMinAvailableTreatsAllRolesAsUnconstrained:
    Safe is {a, b} (job surplus 2, the role has no minimum); Whole {c, d} is off."""
    out = decide(no_role_min() + preemptor(need), config("gangpreempt", allowWholeBundle=False))
    assert evicted(out) == victims


def sub_group_slack() -> list[dict]:
    """TestCreateJobBundles_SubJobGroupSlackCapsSafe: minAvailable 4, sub-group policy g
    (size 2, minSubGroups 2), sub-groups sj1..sj3 of two running pods (task priority 100..105);
    candidates t1a, t2a, t3a. Job surplus 2, group slack 1: Safe {t1a}, Whole {t2a, t3a}."""
    pods = []
    for i in (1, 2, 3):
        for j, s in enumerate("ab"):
            pods.append((f"t{i}{s}", 100 + 2 * (i - 1) + j, {"sg": str(i)}))
    return bundled_job(pods, min_member=4, sgp=[SGP("g", "sg", 2, 2)], local={"t1a", "t2a", "t3a"})


@pytest.mark.parametrize("need, victims", [(1, ["t1a"]), (2, [])])
def test_sub_group_slack_caps_the_safe_bundle(need, victims):
    """bundle_test.go TestCreateJobBundles_SubJobGroupSlackCapsSafe: only one sub-group may
    break, so one task is Safe although the job has two to spare (Whole off)."""
    out = decide(sub_group_slack() + preemptor(need), config("gangpreempt", allowWholeBundle=False))
    assert evicted(out) == victims


def test_sub_group_slack_whole_bundle_goes_whole():
    """bundle_test.go TestCreateJobBundles_SubJobGroupSlackCapsSafe: a need of 2 takes Safe
    {t1a} and then Whole {t2a, t3a} as one."""
    out = decide(sub_group_slack() + preemptor(2), config("gangpreempt"))
    assert evicted(out) == ["t1a", "t2a", "t3a"]


def mixed_roles_and_sub_groups() -> list[dict]:
    """TestCreateJobBundles_MixedLegacyAndSubJobBothEnforced: minAvailable 5, worker min 5;
    sub-group policies m-g (size 1, min 1: sj_m1 {m1}, sj_m2 {m2}) and w-g (size 2, min 2:
    sj_w1 {w1a} already broken, sj_w2 {w2a, w2b}, sj_w3 {w3a, w3b}); candidates m1, w1a."""
    m = {"volcano.sh/task-spec": "master"}
    pods = [("m1", 0, {**m, "mk": "1"}), ("m2", 10, {**m, "mk": "2"})]
    w = {"volcano.sh/task-spec": "worker"}
    pods += [("w1a", 1, {**w, "wk": "1"}), ("w2a", 11, {**w, "wk": "2"}), ("w2b", 12, {**w, "wk": "2"}),
             ("w3a", 13, {**w, "wk": "3"}), ("w3b", 14, {**w, "wk": "3"})]  # fmt: skip
    return bundled_job(pods, min_member=5, mtm={"worker": 5}, sgp=[SGP("m-g", "mk", 1, 1), SGP("w-g", "wk", 2, 2)],
                       local={"m1", "w1a"})  # fmt: skip


@pytest.mark.parametrize("need, victims", [(1, ["m1"]), (2, [])])
def test_role_minimum_and_sub_group_slack_are_both_enforced(need, victims):
    """bundle_test.go TestCreateJobBundles_MixedLegacyAndSubJobBothEnforced: m1 (no role
    minimum, m-g has a sub-group to spare) is Safe; w1a is Whole by its role's minimum alone
    (its sub-group is already broken). Whole off: a need of 2 cannot be met."""
    out = decide(mixed_roles_and_sub_groups() + preemptor(need), config("gangpreempt", allowWholeBundle=False))
    assert evicted(out) == victims


def broken_sub_group() -> list[dict]:
    """TestCreateJobBundles_AlreadyBrokenSubJobIsSubjectToFurtherEviction: minAvailable 3, g
    (size 2, min 2): sj1 {sj1a} broken, sj2 {sj2a, sj2b}, sj3 {sj3a, sj3b}; candidates sj1a,
    sj2a, sj3a. Group slack 0: Safe {sj1a}, Whole {sj2a, sj3a}."""
    pods = [("sj1a", 1, {"sg": "1"}), ("sj2a", 2, {"sg": "2"}), ("sj2b", 3, {"sg": "2"}),
            ("sj3a", 4, {"sg": "3"}), ("sj3b", 5, {"sg": "3"})]  # fmt: skip
    return bundled_job(pods, min_member=3, sgp=[SGP("g", "sg", 2, 2)], local={"sj1a", "sj2a", "sj3a"})


@pytest.mark.parametrize("need, victims", [(1, ["sj1a"]), (2, [])])
def test_an_already_broken_sub_group_stays_evictable(need, victims):
    """bundle_test.go TestCreateJobBundles_AlreadyBrokenSubJobIsSubjectToFurtherEviction (Whole
    off): the broken sub-group's pod is Safe; ready sub-groups have no slack."""
    out = decide(broken_sub_group() + preemptor(need), config("gangpreempt", allowWholeBundle=False))
    assert evicted(out) == victims


def test_a_job_below_its_minimum_is_all_safe():
    """bundle_test.go TestCreateJobBundles_JobNotReadyShortCircuitsAllSafe: minAvailable 10 with
    two running pods (sub-group g, size 3, min 2): the job is already broken, both pods are
    Safe, so even with Whole off a need of 2 takes both."""
    pods = [("a", 0, {"sg": "1"}), ("b", 1, {"sg": "1"})]
    objs = bundled_job(pods, min_member=10, sgp=[SGP("g", "sg", 3, 2)], local={"a", "b"})
    out = decide(objs + preemptor(2), config("gangpreempt", allowWholeBundle=False))
    assert evicted(out) == ["a", "b"]


# -- bundle_test.go: ApplyAllowedTasks --------------------------------------------------------
def critical_in_bundles() -> list[dict]:
    """TestApplyAllowedTasks_WholeAtomicAndSafeShrink: victim job v, minAvailable 2, three
    running pods t1 (task priority 0), t2 (1), t3 (system-node-critical, which ``conformance``
    rejects): Safe {t1}, Whole {t2, t3}."""
    objs: list[dict] = [queue("q1"), *CLASSES, PG("v", min_member=2)]
    objs += [N("n-t1"), T("t1", "v", node="n-t1", prio=0), N("n-t2"), T("t2", "v", node="n-t2", prio=1),
             N("n-t3"), T("t3", "v", node="n-t3", critical=True)]  # fmt: skip
    return objs


@pytest.mark.parametrize("need, victims", [(1, ["t1"]), (2, [])])
def test_a_whole_bundle_with_a_rejected_task_is_dropped_whole(need, victims):
    """bundle_test.go TestApplyAllowedTasks_WholeAtomicAndSafeShrink: the plugins reject t3, so
    the Whole bundle {t2, t3} is dropped whole (t2 is not taken alone); Safe {t1} stays."""
    out = decide(critical_in_bundles() + preemptor(need), config("gangpreempt"))
    assert evicted(out) == victims


@pytest.mark.parametrize("need, victims", [(2, ["t1", "t3"]), (3, [])])
def test_a_safe_bundle_shrinks_to_its_allowed_tasks(need, victims):
    """bundle_test.go TestApplyAllowedTasks_WholeAtomicAndSafeShrink: a Safe bundle keeps the
    tasks the plugins allow. Victim job v has minAvailable 4 and three running pods, so it is
    already broken and all three are Safe (t1, t3 and the system-node-critical t2); t2 is
    rejected, the bundle shrinks to {t1, t3}: a need of 2 takes them, a need of 3 cannot be met."""
    objs: list[dict] = [queue("q1"), *CLASSES, PG("v", min_member=4)]
    objs += [N("n-t1"), T("t1", "v", node="n-t1", prio=0), N("n-t2"), T("t2", "v", node="n-t2", critical=True),
             N("n-t3"), T("t3", "v", node="n-t3", prio=5)]  # fmt: skip
    out = decide(objs + preemptor(need), config("gangpreempt"))
    assert evicted(out) == victims


# -- bundle_test.go: SortBundlesForPreempt / SortBundlesForReclaim ----------------------------
def test_gangpreempt_safe_bundles_go_before_whole_ones_whatever_the_job_priority():
    """bundle_test.go TestSortBundlesForPreempt_TypePriorityAndROI: a Safe bundle of the
    higher-priority victim job (20) goes before a Whole bundle of the lower one (10)."""
    objs: list[dict] = [queue("q1"), *CLASSES, PG("high", pc="p20", min_member=1), PG("low", pc="p10", min_member=1)]
    objs += [N("n-s1"), T("s1", "high", node="n-s1", pc="p20"), N("n-s2"), T("s2", "high", node="n-s2", pc="p20")]
    objs += [N("n-w1"), T("w1", "low", node="n-w1", pc="p10")]
    out = decide(objs + preemptor(1), config("gangpreempt"))
    assert evicted(out) == ["s1"]  # high's Safe bundle: its lower task UID (equal task priorities)


def test_gangpreempt_victim_jobs_follow_reverse_job_order_not_roi():
    """bundle_test.go TestSortBundlesForPreempt_UsesVictimJobOrder (and _TypePriorityAndROI):
    between Whole bundles of two jobs the victim order is the reverse of JobOrderFn, which is
    total (plugins, then creation time, then UID), so ROI never decides. Same priority, both
    gang-ready: ``drf`` orders the smaller job (1 CPU) first, so the bigger one (3 CPUs,
    minAvailable 3) is the victim although its ROI is lower (1/3 against 1)."""
    objs: list[dict] = [queue("q1"), *CLASSES, PG("small", min_member=1), PG("big", min_member=3)]
    objs += [N("n-s"), T("s", "small", node="n-s")]
    objs += [x for i in range(3) for x in (N(f"n-b{i}"), T(f"b{i}", "big", node=f"n-b{i}"))]
    out = decide(objs + preemptor(1), config("gangpreempt"))
    assert evicted(out) == ["b0", "b1", "b2"]
    assert len(nominated(out)) == 1


def test_gangpreempt_the_newer_of_two_equal_victim_jobs_goes_first():
    """bundle_test.go TestSortBundlesForPreempt_UsesVictimJobOrder: two identical victim jobs;
    JobOrderFn falls back to creation time, so the newer job is the victim."""
    objs: list[dict] = [queue("q1"), *CLASSES, PG("ja", created="2026-11-23T08:00:00Z"),
                        PG("jb", created="2026-11-23T08:30:00Z")]  # fmt: skip
    objs += [N("n-a"), T("a", "ja", node="n-a"), N("n-b"), T("b", "jb", node="n-b")]
    out = decide(objs + preemptor(1), config("gangpreempt"))
    assert evicted(out) == ["b"]
    assert nominated(out) == {"p-0": "n-b"}


def reclaim_queues(*jobs: list[dict]) -> list[dict]:
    """The reclaimer (q1, weight 8) against victim queue qa (weight 1, reclaimable, capability 1
    CPU: deserved at most 1 CPU, so far overused by its jobs; Volcano's gangreclaim reads
    neither, Gangplank's ``proportion`` lets a queue give back down to its deserved share)."""
    objs = [queue("q1", weight=8), queue("qa", weight=1, reclaimable=True, capability={"cpu": "1"}), *CLASSES]
    for j in jobs:
        objs += j
    return objs + preemptor(1, name="reclaimer")


def victim_job(name: str, q: str, n: int, *, created: str = "2026-11-23T09:00:00Z") -> list[dict]:
    """A Whole-only victim job: ``n`` running 1-CPU pods, minAvailable ``n``, one node each."""
    objs = [PG(name, q=q, min_member=n, created=created)]
    for i in range(n):
        objs += [N(f"n-{name}{i}"), T(f"{name}{i}", name, node=f"n-{name}{i}")]
    return objs


def test_gangreclaim_inside_one_queue_the_better_roi_goes_first():
    """bundle_test.go TestSortBundlesForReclaim_UsesQueueOrderThenROI (second half): same
    queue, so the queue order ties; ``jd`` (global 2 CPUs) has the better ROI than ``jc`` (4)
    for a need of 1 CPU, and is taken whole although ``jc`` sorts first by UID."""
    out = decide(reclaim_queues(victim_job("jc", "qa", 4), victim_job("jd", "qa", 2)), config("gangreclaim"))
    assert evicted(out) == ["jd0", "jd1"]


def test_gangreclaim_victim_queue_order_goes_before_roi_and_uid():
    """bundle_test.go TestSortBundlesForReclaim_UsesQueueOrderThenROI (first half): bundles of
    different victim queues follow the victim queue order, which without a
    ``VictimQueueOrderFn`` plugin is the reverse of QueueOrderFn (gangreclaim.go
    ``queueLessFn``): ``proportion`` orders the lower share first, so the queue with the
    higher share gives first. qa and qb (capability 500m, so deserved 0.5 CPU each) hold 1 and
    2 CPUs: qb (share 4) before qa (share 2), although ``ja`` sorts first by UID and the ROIs
    are equal. (``jx`` in qb is not preemptable.)"""
    objs = [queue("q1", weight=8), queue("qa", weight=1, reclaimable=True, capability={"cpu": "500m"}),
            queue("qb", weight=1, reclaimable=True, capability={"cpu": "500m"}), *CLASSES]  # fmt: skip
    objs += victim_job("ja", "qa", 1) + victim_job("jb", "qb", 1)
    objs += [PG("jx", q="qb", ann={PREEMPTABLE: "false"}), N("n-jx"), T("jx", "jx", node="n-jx")]
    out = decide(objs + preemptor(1, name="reclaimer"), config("gangreclaim"))
    assert evicted(out) == ["jb0"]
    assert nominated(out) == {"reclaimer-0": "n-jb0"}


def test_gangreclaim_takes_a_reclaimable_queue_that_is_not_overused():
    """gangreclaim_test.go TestSelectDomainVictims_ReclaimableCrossQueueOnly: a candidate is a
    Running, preemptable task of a job in another queue that is ``Reclaimable()``
    (gangreclaim.go ``selectDomainBundles``); whether that queue is overused is not asked (no
    UnifiedEvictable plugin of the profile asks it; ``proportion`` registers none). q2 holds 1
    CPU and deserves 2 (its job also has a pending pod), so it is not overused; the reclaimer's
    q1 deserves its 1 CPU. n2 is held by a pod of another scheduler (no queue)."""
    objs = [N("n1"), N("n2", cpu="9"), queue("q1"), queue("q2", reclaimable=True), *CLASSES]
    objs += [PG("victim", q="q2"), T("victim", "victim", node="n1"), T("victim-1", "victim")]
    objs += [pod("foreign", ns="other", node="n2", cpu="9", memory=None, extra_spec={"schedulerName": "default-scheduler"})]
    out = decide(objs + preemptor(1, name="reclaimer"), config("gangreclaim"))
    assert evicted(out) == ["victim"]
    assert nominated(out) == {"reclaimer-0": "n1"}


def test_gangreclaim_proportion_is_no_unified_evictable_filter():
    """Volcano's proportion registers no UnifiedEvictable function (only capacity,
    conformance, gang and priority call ``AddUnifiedEvictableFn``): with ``proportion`` in the
    tier that answers, q2 below its deserved still gives its pod back (Gangplank's seed-01
    path asks proportion's Reclaimable there)."""
    objs = [N("n1"), N("n2", cpu="9"), queue("q1"), queue("q2", reclaimable=True), *CLASSES]
    objs += [PG("victim", q="q2"), T("victim", "victim", node="n1"), T("victim-1", "victim")]
    objs += [pod("foreign", ns="other", node="n2", cpu="9", memory=None, extra_spec={"schedulerName": "default-scheduler"})]
    tiers = [{"plugins": [{"name": "gang"}, {"name": "proportion"}, {"name": "predicates"}, {"name": "nodeorder"}]}]
    out = decide(objs + preemptor(1, name="reclaimer"), config("gangreclaim", tiers=tiers))
    assert evicted(out) == ["victim"]
    seed01 = {**config("gangreclaim", tiers=tiers), "configurations": [{"name": "gangreclaim", "arguments": {"algorithm": "bundles"}}]}
    assert evicted(decide(objs + preemptor(1, name="reclaimer"), seed01)) == []


def test_gangreclaim_equal_bundles_in_one_queue_go_by_job_uid():
    """bundle_test.go TestSortBundlesForReclaim_DeterministicTieBreaker: same queue, same ROI:
    the lower job UID (``ns/ja``) goes first, although ``ja`` is the older job."""
    jobs = (victim_job("ja", "qa", 1, created="2026-11-23T08:00:00Z"),
            victim_job("jb", "qa", 1, created="2026-11-23T08:30:00Z"))  # fmt: skip
    out = decide(reclaim_queues(*jobs), config("gangreclaim"))
    assert evicted(out) == ["ja0"]
    assert nominated(out) == {"reclaimer-0": "n-ja0"}


# -- simulate_test.go ------------------------------------------------------------------------
def test_victims_are_evicted_and_the_preemptor_nominated_together_even_when_it_would_fit():
    """simulate_test.go TestBuildNominationPlanInDomain_WithVictimIncludesEvictAndPipeline: node
    n1 (3 CPUs free) runs the victim; the plan holds the victim's eviction and the preemptor's
    pipeline (2 operations). The actions never ask whether the job fits without victims: with
    only ``gangpreempt`` running (no allocate before it), the first bundle covering the need is
    evicted and the preemptor nominated."""
    objs = [N("n1", cpu="4"), queue("q1"), *CLASSES, PG("victim"), T("victim", "victim", node="n1")]
    out = decide(objs + preemptor(1), config("gangpreempt", actions="gangpreempt"))
    assert evicted(out) == ["victim"]
    assert nominated(out) == {"p-0": "n1"}


def test_no_nomination_without_a_feasible_node():
    """simulate_test.go TestBuildNominationPlanInDomain_NoFeasibleNode: no idle capacity and no
    victim (the running pod is of a higher-priority job): nothing is evicted or nominated."""
    objs = [N("n1"), queue("q1"), *CLASSES, PG("peer", pc="p100"), T("peer", "peer", node="n1", pc="p100")]
    out = decide(objs + preemptor(1), config("gangpreempt"))
    assert evicted(out) == [] and nominated(out) == {}


def test_a_failed_simulation_evicts_nothing():
    """simulate_test.go TestBuildNominationPlanInDomain_PipelineFailureRollsBackEviction: the
    victims would free the capacity but the preemptor cannot be placed (its node selector
    matches no node), so the dry-run's evictions are rolled back: nothing is evicted."""
    objs = one_victim()
    objs += preemptor(1, extra_spec={"nodeSelector": {"zone": "nowhere"}})
    out = decide(objs, config("gangpreempt"))
    assert evicted(out) == [] and nominated(out) == {}


def test_the_simulation_prefers_an_idle_node_over_a_future_idle_one():
    """simulate_test.go TestBuildNominationPlanInDomain_PrefersIdleNodeOverFutureIdle and
    TestPickBestNodeForTask_PrefersIdleGroup: n-future frees its capacity only by the victim's
    eviction, n-idle is free: the preemptor is nominated to n-idle (the victim still goes:
    the actions do not check the fit without victims)."""
    objs = [N("n-future"), N("n-idle"), queue("q1"), *CLASSES, PG("victim"), T("victim", "victim", node="n-future")]
    out = decide(objs + preemptor(1), config("gangpreempt", actions="gangpreempt"))
    assert evicted(out) == ["victim"]
    assert nominated(out) == {"p-0": "n-idle"}


def test_a_nominated_node_is_no_short_cut_past_the_victims():
    """simulate_test.go TestBuildNominationPlanInDomain_NominatedHintDoesNotShortCircuitPredicate:
    the preemptor's pod names n-nominated (free); the plan still runs over the domain's nodes
    (one of n-nominated, n-other gets it) and the selected victim is evicted."""
    objs = [N("n-nominated", cpu="2"), N("n-other", cpu="3"), N("n-v"), queue("q1"), *CLASSES, PG("victim"),
            T("victim", "victim", node="n-v")]  # fmt: skip
    out = decide(objs + preemptor(1, nominated="n-nominated"), config("gangpreempt", actions="gangpreempt"))
    assert evicted(out) == ["victim"]
    assert nominated(out) in ({"p-0": "n-nominated"}, {"p-0": "n-other"})


def test_a_nominated_node_outside_the_domain_is_ignored():
    """simulate_test.go TestBuildNominationPlanInDomain_IgnoresNominatedNodeOutsideDomain: the
    job (hard, tier 1) names n-nominated in HyperNode d2, where there is no victim, so d2 is
    skipped; in d1 the victim is evicted and the pod nominated to d1's node."""
    objs = [N("n-domain"), N("n-nominated", cpu="2"), hypernode("d1", 1, ["n-domain"]),
            hypernode("d2", 1, ["n-nominated"]), queue("q1"), *CLASSES, PG("victim"),
            T("victim", "victim", node="n-domain")]  # fmt: skip
    objs += preemptor(1, nt={"mode": "hard", "highestTierAllowed": 1}, nominated="n-nominated")
    out = decide(objs, config("gangpreempt", actions="gangpreempt", nta=True))
    assert evicted(out) == ["victim"]
    assert nominated(out) == {"p-0": "n-domain"}


def test_a_missing_nominated_node_falls_back_to_the_domain():
    """simulate_test.go TestBuildNominationPlanInDomain_FallbackWhenNominatedMissing."""
    out = decide(one_victim() + preemptor(1, nominated="n-missing"), config("gangpreempt"))
    assert evicted(out) == ["victim"]
    assert nominated(out) == {"p-0": "n1"}


def test_an_infeasible_nominated_node_falls_back_to_another():
    """simulate_test.go TestBuildNominationPlanInDomain_FallbackWhenNominatedInfeasible: the
    nominated node is full (of a job the preemptor may not preempt); the victim's node gets
    the pod."""
    objs = [N("n-nominated"), N("n-other"), queue("q1"), *CLASSES, PG("peer", pc="p100"),
            T("peer", "peer", node="n-nominated", pc="p100"), PG("victim"), T("victim", "victim", node="n-other")]  # fmt: skip
    out = decide(objs + preemptor(1, nominated="n-nominated"), config("gangpreempt"))
    assert evicted(out) == ["victim"]
    assert nominated(out) == {"p-0": "n-other"}


def test_a_ready_job_is_grown_one_sub_group_per_round():
    """simulate_test.go TestCollectPendingTasksForRunningJob_FirstWorksheetSubJobOnly: a ready
    job (minAvailable 1, running pod in sub-group 1) with pending pods in sub-groups 2 and 3:
    its need is the first worksheet sub-group's pods only, so one victim goes and one pod is
    nominated: ``v2``, the last job in JobOrder (equal priority, share and creation time:
    by UID). (A ready job is starving only without gang's JobStarving, which asks for fewer
    than minAvailable ready: here a posted configuration turns it off, leaving priority's.)"""
    objs: list[dict] = [queue("q1"), *CLASSES]
    for i in range(3):
        objs += [N(f"n{i}"), PG(f"v{i}"), T(f"v{i}", f"v{i}", node=f"n{i}")]
    objs += [N("n-run"), PG("p", min_member=1, pc="p100", sgp=[SGP("g", "sg", 1, 0)], created="2026-11-23T11:00:00Z"),
             T("p-run", "p", node="n-run", pc="p100", labels={"sg": "1"}),
             T("p-2", "p", pc="p100", labels={"sg": "2"}), T("p-3", "p", pc="p100", labels={"sg": "3"})]  # fmt: skip
    out = decide(objs, config("gangpreempt", tiers=volcano_tiers(gang_starving=False)))
    assert evicted(out) == ["v2"]
    assert len(nominated(out)) == 1 and set(nominated(out)) <= {"p-2", "p-3"}
    assert set(nominated(out).values()) == {"n2"}


def test_a_preemptor_whose_pending_pods_request_nothing_evicts_nothing():
    """simulate_test.go TestCollectPendingTasksForJobStartup_EmptyWorksheetReturnsNil: the
    worksheet leaves out pending pods with an empty request, so a job of BestEffort pods has
    no need and evicts nothing."""
    objs = one_victim() + [PG("p", pc="p100", phase="Inqueue"),
                           pod("p-0", ns="ns", cpu=None, memory=None, group="p", priority_class="p100")]  # fmt: skip
    out = decide(objs, config("gangpreempt"))
    assert evicted(out) == []


# -- util_test.go / network_topology_aware_test.go ------------------------------------------
def test_a_hard_topology_job_without_eviction_gradients_does_not_fall_back_to_the_cluster():
    """util_test.go TestGetCandidateDomains_EmptyGradient_HardTopologyNoFallback (and
    network_topology_aware_test.go TestHyperNodeGradientPreFiltering "Evict purpose -
    allocatable insufficient"): the job (hard, tier 1) asks ``minResources`` of 2 CPUs; each
    tier-1 HyperNode has 1, so the eviction gradient is empty and no domain is tried, although
    the cluster could hold the pod by evicting a victim."""
    objs = [N("n1"), N("n2"), hypernode("h1", 1, ["n1"]), hypernode("h2", 1, ["n2"]), queue("q1"), *CLASSES,
            PG("v1"), T("v1", "v1", node="n1"), PG("v2"), T("v2", "v2", node="n2")]  # fmt: skip
    objs += preemptor(1, nt={"mode": "hard", "highestTierAllowed": 1}, min_resources={"cpu": "2"})
    out = decide(objs, config("gangpreempt", nta=True))
    assert evicted(out) == [] and nominated(out) == {}


def test_an_eviction_domain_is_kept_by_its_allocatable_not_its_idle():
    """network_topology_aware_test.go TestHyperNodeGradientPreFiltering ("Evict purpose - idle
    insufficient, futureIdle insufficient" and "Evict purpose - allocatable insufficient"):
    for eviction a HyperNode is a domain when its allocatable holds the job's
    ``minResources``, whatever is idle: h1 (1 CPU allocatable) is filtered out for a
    ``minResources`` of 2 CPUs, h2 (2 CPUs, none idle) is kept and its lower-priority victim
    goes, although h1's victim is cheaper still."""
    objs = [N("n1"), N("n2a"), N("n2b"), hypernode("h1", 1, ["n1"]), hypernode("h2", 1, ["n2a", "n2b"]),
            queue("q1"), *CLASSES, PG("cheap", pc="p10"), T("cheap", "cheap", node="n1"),
            PG("mid", pc="p20"), T("mid", "mid", node="n2a", pc="p20"),
            PG("low", pc="p10", created="2026-11-23T09:30:00Z"), T("low", "low", node="n2b")]  # fmt: skip
    objs += preemptor(1, nt={"mode": "hard", "highestTierAllowed": 1}, min_resources={"cpu": "2"})
    out = decide(objs, config("gangpreempt", nta=True))
    assert evicted(out) == ["low"]
    assert nominated(out) == {"p-0": "n2b"}


def widest_first_cluster() -> list[dict]:
    """s (tier 2) over a {na} and b {nb} (tier 1); ``hi`` (priority 20) runs on na, ``lo``
    (priority 10) on nb; the job (hard, tier 2) needs one node."""
    objs = [N("na"), N("nb"), hypernode("a", 1, ["na"]), hypernode("b", 1, ["nb"]),
            hypernode("s", 2, ["a", "b"], member_type="HyperNode"), queue("q1"), *CLASSES,
            PG("hi", pc="p20"), T("hi", "hi", node="na", pc="p20"), PG("lo", pc="p10"), T("lo", "lo", node="nb")]  # fmt: skip
    return objs + preemptor(1, nt={"mode": "hard", "highestTierAllowed": 2})


@pytest.mark.parametrize("cap", [None, 0, 1], ids=["default", "zero-is-8", "one"])
def test_eviction_domains_are_tried_widest_first(cap):
    """network_topology_aware_test.go TestReverseAndCapEvictionGradients: the eviction
    gradients run from the highest tier down, so s is tried before a and b; in s the victim
    job order (lower priority first) picks ``lo``. ``hypernode.gradient.evict.max-hypernodes``
    0 is read as 8; 1 keeps only s."""
    objs = widest_first_cluster()
    conf = config("gangpreempt", nta=True)
    if cap is not None:
        conf["tiers"] = [dict(t) for t in conf["tiers"]]
        plugins = [dict(p) for p in conf["tiers"][1]["plugins"]]
        plugins[-1]["arguments"] = {"hypernode.gradient.evict.max-hypernodes": cap}
        conf["tiers"][1] = {"plugins": plugins}
    out = decide(objs, conf)
    assert evicted(out) == ["lo"]
    assert nominated(out) == {"p-0": "nb"}
    no_warnings(out)


def capped_cluster() -> list[dict]:
    """s (tier 2) over a {na} and b {nb}; victim job v (minAvailable 1) runs v-a on na (task
    priority 0) and v-b on nb (5); the job (hard, tier 2) needs nb (node selector). Gradients
    for eviction: [[s], [a, b]]. In s, v-a is Safe and v-b Whole (the job can spare one, the
    lowest task priority), so with ``allowWholeBundle: false`` only v-a may go, which does not
    free nb: s fails. In a, v-a is all there is and nb is not there: a fails. In b, v-b alone
    is local and Safe: b succeeds."""
    objs = [N("na"), N("nb"), hypernode("a", 1, ["na"]), hypernode("b", 1, ["nb"]),
            hypernode("s", 2, ["a", "b"], member_type="HyperNode"), queue("q1"), *CLASSES, PG("v"),
            T("v-a", "v", node="na", prio=0), T("v-b", "v", node="nb", prio=5)]  # fmt: skip
    return objs + preemptor(1, nt={"mode": "hard", "highestTierAllowed": 2},
                            extra_spec={"nodeSelector": {"kubernetes.io/hostname": "nb"}})  # fmt: skip


@pytest.mark.parametrize("max_domains, evict_max, victims", [
    (None, None, ["v-b"]), (3, None, ["v-b"]), (1, None, []), (None, 1, [])],
    ids=["default", "maxDomains-3", "maxDomains-1", "evict-max-hypernodes-1"])  # fmt: skip
def test_max_domains_caps_the_domains_tried(max_domains, evict_max, victims):
    """gangpreempt_test.go TestPickDomainsFromGradients_MaxDomainsAndDedup (the cap, utils
    ``PickDomainsFromGradients``) and network_topology_aware_test.go
    TestReverseAndCapEvictionGradients (the plugin's ``hypernode.gradient.evict.max-hypernodes``
    cap): with 8 or 3 domains s, then a and b are tried and b clears the way; capped at 1 only
    s is tried, and nothing is evicted."""
    args: dict[str, Any] = {"allowWholeBundle": False}
    if max_domains is not None:
        args["maxDomains"] = max_domains
    conf = config("gangpreempt", nta=True, **args)
    if evict_max is not None:
        tiers = volcano_tiers(nta=True)
        tiers[1]["plugins"][-1]["arguments"] = {"hypernode.gradient.evict.max-hypernodes": evict_max}
        conf["tiers"] = tiers
    out = decide(capped_cluster(), conf)
    assert evicted(out) == victims
    assert nominated(out) == ({"p-0": "nb"} if victims else {})


def test_a_hard_sub_group_without_a_feasible_tier_1_domain_does_not_fall_back():
    """network_topology_aware_test.go TestHyperNodeGradientForSubJobFn_NoSubJobPolicyRespectsHardTopology:
    zones zone-a {a1, a2} and zone-d {d1, d2} (tier 1, 8 CPUs a node) under region (tier 2);
    the job (hard, tier 2) has one sub-group (hard, tier 1) of three 6-CPU pods (18 CPUs,
    more than a zone's 16). The region holds the need with victims, but the sub-group's
    eviction gradient is empty (no fallback to the region), so the simulation fails and
    nothing is evicted."""
    names = ["a1", "a2", "d1", "d2"]
    objs = [N(n, cpu="8") for n in names]
    objs += [hypernode("zone-a", 1, ["a1", "a2"]), hypernode("zone-d", 1, ["d1", "d2"]),
             hypernode("region", 2, ["zone-a", "zone-d"], member_type="HyperNode"), queue("q1"), *CLASSES]  # fmt: skip
    for n in names:
        objs += [PG(f"v-{n}"), T(f"v-{n}", f"v-{n}", node=n, cpu="8")]
    hard1 = {"mode": "hard", "highestTierAllowed": 1}
    objs += [PG("p", min_member=3, pc="p100", phase="Inqueue", nt={"mode": "hard", "highestTierAllowed": 2},
                sgp=[SGP("g", "sg", 3, 1, nt=hard1)], created="2026-11-23T11:00:00Z")]  # fmt: skip
    objs += [T(f"p-{i}", "p", cpu="6", pc="p100", labels={"sg": "1"}) for i in range(3)]
    out = decide(objs, config("gangpreempt", nta=True))
    assert evicted(out) == [] and nominated(out) == {}


# -- which gang-aware eviction runs (Gangplank's dispatch, app/actions/preempt.py) ------------
def test_a_gangplank_option_under_the_volcano_profile_runs_seed01_and_says_so():
    """``victimOrder`` is Gangplank's: named under the ``volcano`` profile, gangpreempt runs
    seed 01's path (which trims the Safe bundle to what the need takes) and the answer says
    why it is not Volcano's."""
    out = decide(safe_and_whole() + preemptor(1), config("gangpreempt", victimOrder="priority"))
    assert evicted(out) == ["a"]
    assert any("victimOrder is Gangplank's" in w for w in out["warnings"])
    volcano = decide(safe_and_whole() + preemptor(1), config("gangpreempt"))
    assert evicted(volcano) == ["a", "b"] and not any("Gangplank's" in w for w in volcano["warnings"])


def test_algorithm_volcano_runs_volcanos_gangpreempt_in_the_gangplank_profile():
    conf = {"profile": "gangplank", "actions": "allocate, gangpreempt"}
    assert evicted(decide(safe_and_whole() + preemptor(1), conf)) == ["a"]
    conf["configurations"] = [{"name": "gangpreempt", "arguments": {"algorithm": "volcano"}}]
    assert evicted(decide(safe_and_whole() + preemptor(1), conf)) == ["a", "b"]


def test_max_domains_zero_is_eight_with_a_warning():
    out = decide(safe_and_whole() + preemptor(1), config("gangpreempt", maxDomains=0))
    assert evicted(out) == ["a", "b"]
    assert any("maxDomains 0 is not positive" in w for w in out["warnings"])


def test_an_eviction_cap_inside_a_tier_keeps_its_last_hypernodes_and_says_volcanos_are_by_chance():
    """network_topology_aware_test.go TestReverseAndCapEvictionGradients: gradients [[a, b],
    [c, d]] capped at 3 give [[c, d], [b]]: the cut tier keeps its last HyperNode. Volcano's
    order inside a tier is map iteration, so which one is its chance: named in warnings."""
    objs = [N("na"), N("nb"), hypernode("a", 1, ["na"]), hypernode("b", 1, ["nb"]),
            hypernode("c", 2, ["a"], member_type="HyperNode"), hypernode("d", 2, ["b"], member_type="HyperNode"),
            queue("q1"), *CLASSES, PG("v"), T("v-a", "v", node="na"), T("v-b", "v", node="nb")]  # fmt: skip
    objs += preemptor(1, nt={"mode": "hard", "highestTierAllowed": 2})
    tiers = volcano_tiers(nta=True)
    tiers[1]["plugins"][-1]["arguments"] = {"hypernode.gradient.evict.max-hypernodes": 3}
    out = decide(objs, {**config("gangpreempt", nta=True), "tiers": tiers})
    cut = [w for w in out["warnings"] if "eviction cap" in w]
    assert len(cut) == 1 and "keeps 1 of the 2 HyperNodes of tier 1 (b," in cut[0]


@pytest.mark.parametrize("min_cpu, node", [(None, "na"), ("1", "na"), ("2", "nb")])
def test_allocation_gradients_keep_hypernodes_whose_idle_or_future_idle_holds_min_resources(min_cpu, node):
    """network_topology_aware.go ``isEligibleHyperNode`` for allocation (the rule of
    TestHyperNodeGradientPreFiltering's allocate cases, on a hand-sized cluster): a job with
    no HyperNode yet is offered a HyperNode only if its idle or future idle at session open
    holds the PodGroup's ``minResources``. a {na: 2 CPU, 1 used} and b {nb: 2 CPU free}; the
    job (hard, tier 1) has one pending 1-CPU pod: HyperNode binpack prefers the fuller a, unless
    minResources of 2 CPU leave only b."""
    objs = [N("na", cpu="2"), N("nb", cpu="2"), hypernode("a", 1, ["na"]), hypernode("b", 1, ["nb"]),
            queue("q1"), *CLASSES, PG("busy"), T("busy-0", "busy", node="na")]  # fmt: skip
    objs += preemptor(1, nt={"mode": "hard", "highestTierAllowed": 1},
                      min_resources={"cpu": min_cpu} if min_cpu else None)  # fmt: skip
    out = decide(objs, config("allocate", actions="allocate", nta=True))
    assert {b["pod"].removeprefix("ns/"): b["node"] for b in out["bindings"]} == {"p-0": node}



def test_a_simulated_sub_job_is_placed_whole_or_the_prefix_fails():
    """simulate.go ``runSimulateTrialAtHyperNode``: the trial fails at the first pod that
    finds no node, so a prefix that lets only part of the job in fails although the job
    (minMember 1) would be pipelined with one pod. n1 (3 CPU) runs a (2 CPU, job priority 10),
    n2 (3 CPU) runs b (2 CPU, priority 20); the job needs two 2-CPU pods (4 CPU): prefix {a}
    covers the need in sum (1 + 1 idle + 2 freed) but only p-0 finds a node, so Volcano goes
    on to {a, b}. Gangplank's seed-01 path keeps the one-pod placement."""
    objs = [N("n1", cpu="3"), N("n2", cpu="3"), queue("q1"), *CLASSES,
            PG("a", pc="p10"), T("a-0", "a", node="n1", cpu="2"), PG("b", pc="p20"), T("b-0", "b", node="n2", cpu="2")]  # fmt: skip
    job = [PG("p", min_member=1, pc="p100", phase="Inqueue", created="2026-11-23T11:00:00Z"),
           T("p-0", "p", cpu="2", pc="p100"), T("p-1", "p", cpu="2", pc="p100")]  # fmt: skip
    out = decide(objs + job, config("gangpreempt"))
    assert evicted(out) == ["a-0", "b-0"]
    assert sorted(nominated(out)) == ["p-0", "p-1"]


def test_a_ready_jobs_simulation_places_its_first_sub_job_only():
    """simulate.go ``BuildNominationPlanInDomain``: a job that was ready (``jobWasReady``)
    stops after its first sub-job's trial. The ready job of
    ``test_a_ready_job_is_grown_one_sub_group_per_round`` with a free 1-CPU node besides:
    the need (one sub-group's pod) is covered by the first prefix, and of p-2 and p-3, for
    which there would be room, only one is nominated."""
    objs: list[dict] = [queue("q1"), *CLASSES, N("n-free")]
    for i in range(3):
        objs += [N(f"n{i}"), PG(f"v{i}"), T(f"v{i}", f"v{i}", node=f"n{i}")]
    objs += [N("n-run"), PG("p", min_member=1, pc="p100", sgp=[SGP("g", "sg", 1, 0)], created="2026-11-23T11:00:00Z"),
             T("p-run", "p", node="n-run", pc="p100", labels={"sg": "1"}),
             T("p-2", "p", pc="p100", labels={"sg": "2"}), T("p-3", "p", pc="p100", labels={"sg": "3"})]  # fmt: skip
    out = decide(objs, config("gangpreempt", actions="gangpreempt", tiers=volcano_tiers(gang_starving=False)))
    assert evicted(out) == ["v2"]
    assert len(nominated(out)) == 1


# -- the review's findings, fixed (each rule as Volcano's code has it) -------------------------
def _with_uid(pg: dict, uid: str) -> dict:
    pg["metadata"]["uid"] = uid
    return pg


def test_job_order_ties_break_on_the_job_id_not_the_podgroup_uid():
    """session_plugins.go ``JobOrderFn``: equal priority and creation time fall back to
    ``JobInfo.UID``, which is the job ID ``namespace/name`` (cache ``getJobID``), not the
    PodGroup's ``metadata.uid``. Victims ``a`` and ``b`` (one pod each, same priority and
    creation time) carry UIDs ordered against their names; the preemptor needs one of them:
    gangpreempt takes the job last in JobOrder first, ``ns/b``."""
    objs = [N("n1"), N("n2"), queue("q1"), *CLASSES,
            _with_uid(PG("a"), "uid-z"), T("a-0", "a", node="n1"), _with_uid(PG("b"), "uid-a"), T("b-0", "b", node="n2")]  # fmt: skip
    out = decide(objs + preemptor(1), config("gangpreempt", actions="gangpreempt"))
    assert evicted(out) == ["b-0"]
    assert nominated(out) == {"p-0": "n2"}


def test_allocate_job_order_ties_break_on_the_job_id_not_the_podgroup_uid():
    """The same tie-break in allocate: two pending one-pod jobs alike but for their names and
    UIDs (ordered against the names), one free node: ``ns/a`` is first in JobOrder and is bound."""
    objs = [N("n1"), queue("q1"), *CLASSES,
            _with_uid(PG("a", phase="Inqueue"), "uid-z"), T("a-0", "a"),
            _with_uid(PG("b", phase="Inqueue"), "uid-a"), T("b-0", "b")]  # fmt: skip
    out = decide(objs, {"profile": "volcano", "actions": "allocate"})
    assert {b["pod"]: b["node"] for b in out["bindings"]} == {"ns/a-0": "n1"}


def test_the_simulation_stops_once_the_job_is_pipelined():
    """simulate.go ``BuildNominationPlanInDomain``: the plan stops at the first sub-job after
    which the job is pipelined. The job (minMember 1) has two one-pod sub-groups; its need is
    both pods (2 CPU), covered by n-free's idle CPU and the victim's: after the first
    sub-job (``sg=1``, MatchIndex 1, on the idle node) the job is pipelined, and ``p-2`` is
    not nominated although the victim's node would take it."""
    objs = [N("n-free"), N("n1"), queue("q1"), *CLASSES, PG("v"), T("v-0", "v", node="n1"),
            PG("p", min_member=1, pc="p100", phase="Inqueue", sgp=[SGP("g", "sg", 1, 0)], created="2026-11-23T11:00:00Z"),
            T("p-1", "p", pc="p100", labels={"sg": "1"}), T("p-2", "p", pc="p100", labels={"sg": "2"})]  # fmt: skip
    out = decide(objs, config("gangpreempt", actions="gangpreempt"))
    assert evicted(out) == ["v-0"]
    assert nominated(out) == {"p-1": "n-free"}


def test_a_sub_job_the_simulation_cannot_place_fails_the_plan():
    """simulate.go ``BuildNominationPlanInDomain``: a sub-job that finds no place fails the
    whole plan, although a later sub-job would pipeline the job. The job (minMember 1) has
    sub-groups ``sg=1`` (its pod selects no node) and ``sg=2``; MatchIndex puts ``sg=1``
    first: its trial fails, so nothing is evicted or nominated (allocate would go on to
    ``sg=2``, on n-free)."""
    objs = [N("n-free"), N("n1"), queue("q1"), *CLASSES, PG("v"), T("v-0", "v", node="n1"),
            PG("p", min_member=1, pc="p100", phase="Inqueue", sgp=[SGP("g", "sg", 1, 0)], created="2026-11-23T11:00:00Z"),
            T("p-1", "p", pc="p100", labels={"sg": "1"}, extra_spec={"nodeSelector": {"zone": "nowhere"}}),
            T("p-2", "p", pc="p100", labels={"sg": "2"})]  # fmt: skip
    out = decide(objs, config("gangpreempt", actions="gangpreempt"))
    assert evicted(out) == [] and nominated(out) == {}


def test_the_default_sub_job_is_ordered_like_the_others():
    """simulate.go ``organizeEvictionWorksheet`` orders every sub-job, the default one (pods
    no policy matched: UID the job ID, MatchIndex 0) included, by SubJobOrder: here by
    MatchIndex, so the default sub-job (``p-a``, no label) comes before ``sg=1``. With the
    plan stopping once the job (minMember 1) is pipelined, ``p-a`` is the one nominated
    (allocate puts the default sub-group last)."""
    objs = [N("n-free"), N("n1"), queue("q1"), *CLASSES, PG("v"), T("v-0", "v", node="n1"),
            PG("p", min_member=1, pc="p100", phase="Inqueue", sgp=[SGP("g", "sg", 1, 0)], created="2026-11-23T11:00:00Z"),
            T("p-1", "p", pc="p100", labels={"sg": "1"}), T("p-a", "p", pc="p100")]  # fmt: skip
    out = decide(objs, config("gangpreempt", actions="gangpreempt"))
    assert evicted(out) == ["v-0"]
    assert nominated(out) == {"p-a": "n-free"}


def test_the_simulation_predicates_are_preemptions_a_host_port_conflict_passes():
    """simulate.go ``simulatePredicate`` asks ``PredicateForPreemptAction``, which lets a
    failure an eviction might resolve (``Unschedulable``: a host port) pass, even where no
    eviction resolves it. n1 runs the victim and ``keep`` (priority 100, not a victim),
    which holds host port 8080; the preemptor asks for 8080 too. Volcano evicts the victim
    and nominates the preemptor to n1 (where kube-scheduler will not bind it while ``keep``
    runs); allocate's predicates would refuse n1 and evict nothing."""
    def ports(cpu: str) -> dict:
        return {"containers": [{"name": "main", "image": "x", "resources": {"requests": {"cpu": cpu}},
                                "ports": [{"containerPort": 8080, "hostPort": 8080}]}]}  # fmt: skip

    objs = [N("n1", cpu="2"), queue("q1"), *CLASSES, PG("v"), T("v-0", "v", node="n1"),
            PG("keep", pc="p100"), T("keep-0", "keep", node="n1", pc="p100", extra_spec=ports("1"))]  # fmt: skip
    out = decide(objs + preemptor(1, extra_spec=ports("1")), config("gangpreempt", actions="gangpreempt"))
    assert evicted(out) == ["v-0"]
    assert nominated(out) == {"p-0": "n1"}


def _two_racks() -> list[dict]:
    """Two tier-1 HyperNodes (r1: n1, n2; r2: n3) under a tier-2 one; victims v1 on n1, v2
    on n3 (one pod each, priority 10, v2 created later, so last in JobOrder)."""
    return [N("n1"), N("n2"), N("n3"), hypernode("r1", 1, ["n1", "n2"]), hypernode("r2", 1, ["n3"]),
            hypernode("s", 2, ["r1", "r2"], member_type="HyperNode"), queue("q1"), *CLASSES,
            PG("v1"), T("v1-0", "v1", node="n1"), PG("v2", created="2026-11-23T09:30:00Z"), T("v2-0", "v2", node="n3")]  # fmt: skip


def test_a_soft_topology_is_hard_at_the_root_tier_for_the_eviction_domains():
    """session.go ``convertSoftToHardTopology``: a soft job is hard at the cluster root's tier,
    so its eviction domains are the gradients from the root down (``ContainsHardTopology``).
    n2 is full of a job the preemptor may not take; the two-pod job fits nowhere but on
    n1 + n3 (root domain): both victims go. (Seed 01 reads soft as the whole cluster too.)"""
    objs = _two_racks() + [PG("peer", pc="p100"), T("peer-0", "peer", node="n2", pc="p100")]
    out = decide(objs + preemptor(2, nt={"mode": "soft"}), config("gangpreempt", actions="gangpreempt", nta=True))
    assert evicted(out) == ["v1-0", "v2-0"]
    assert nominated(out) == {"p-0": "n1", "p-1": "n3"} or nominated(out) == {"p-0": "n3", "p-1": "n1"}


def test_a_hard_topology_without_a_tier_is_no_constraint():
    """job_info.go ``IsHardTopologyMode`` needs ``highestTierAllowed`` (a tier name is
    translated to it at session open): ``mode: hard`` with neither is no constraint, so
    the job is placed across racks like a job without a topology. The two-pod job gets n2
    (free) and n3 (v2, last in JobOrder, goes): under a tier-1 constraint it could not
    (r1's n1 + n2 would be needed, and then v1 goes)."""
    out = decide(_two_racks() + preemptor(2, nt={"mode": "hard"}), config("gangpreempt", actions="gangpreempt", nta=True))
    assert evicted(out) == ["v2-0"]
    assert sorted(nominated(out).values()) == ["n2", "n3"]
    out = decide(_two_racks() + preemptor(2, nt={"mode": "hard", "highestTierAllowed": 1}),
                 config("gangpreempt", actions="gangpreempt", nta=True))  # fmt: skip
    assert evicted(out) == ["v1-0"]
    assert sorted(nominated(out).values()) == ["n1", "n2"]


def test_allocate_reads_a_hard_topology_without_a_tier_as_no_constraint():
    """The same rule in allocate: r1 holds n1 and n2, r2 holds n3, which the pods prefer
    (preferred node affinity). Under ``highestTierAllowed: 1`` the two-pod job must share a
    rack and gets r1's nodes; under ``mode: hard`` alone it has no constraint and the first
    pod goes to n3."""
    objs = [N("n1"), N("n2"), node("n3", cpu="1", memory="8Gi", gpu=None, pods="110", labels={"zone": "b"}),
            hypernode("r1", 1, ["n1", "n2"]), hypernode("r2", 1, ["n3"]),
            hypernode("s", 2, ["r1", "r2"], member_type="HyperNode"), queue("q1"), *CLASSES]  # fmt: skip
    prefer = {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}}]}}}

    def placed(nt: dict) -> list[str]:
        out = decide(objs + preemptor(2, nt=nt, extra_spec=prefer), config("allocate", actions="allocate", nta=True))
        return sorted(b["node"] for b in out["bindings"])

    assert placed({"mode": "hard", "highestTierAllowed": 1}) == ["n1", "n2"]
    assert "n3" in placed({"mode": "hard"})


def test_capacity_keeps_every_candidate_of_a_gang_preemption_and_so_decides_its_tier():
    """capacity.go's UnifiedEvictableFn for ``gangpreempt`` permits every candidate (it
    does not filter preemption), so a tier holding ``capacity`` has an answer. The victim's
    pod is system-node-critical: tier 1's ``conformance`` keeps nothing, which leaves tier 1
    without an answer; tier 2 (``capacity``) answers with the victim, which is evicted."""
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
             {"plugins": [{"name": "capacity"}, {"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip
    objs = [N("n1"), queue("q1"), *CLASSES, PG("v"), T("v-0", "v", node="n1", critical=True)]
    out = decide(objs + preemptor(1), config("gangpreempt", actions="gangpreempt", tiers=tiers))
    assert evicted(out) == ["v-0"]
    assert nominated(out) == {"p-0": "n1"}


def test_priority_keeps_every_candidate_of_a_gang_reclaim_and_so_decides_its_tier():
    """priority.go's UnifiedEvictableFn for ``gangreclaim`` permits every candidate (reclaim
    is fairness-driven), so a tier holding ``priority`` has an answer and a later tier's
    ``capacity`` is not asked. q2 is within its deserved 1 CPU, so capacity would keep its
    pod; with ``priority`` alone in tier 1 the pod is reclaimed all the same."""
    tiers = [{"plugins": [{"name": "priority"}]},
             {"plugins": [{"name": "gang"}, {"name": "conformance"}, {"name": "capacity"}, {"name": "predicates"},
                          {"name": "nodeorder"}]}]  # fmt: skip
    objs = [N("n1"), queue("q1", deserved={"cpu": "2"}), queue("q2", deserved={"cpu": "1"}, reclaimable=True), *CLASSES,
            PG("v", q="q2"), T("v-0", "v", node="n1")]  # fmt: skip
    out = decide(objs + preemptor(1, name="r"), config("gangreclaim", actions="gangreclaim", tiers=tiers))
    assert evicted(out) == ["v-0"]
    assert nominated(out) == {"r-0": "n1"}
    tiers[1]["plugins"].insert(0, tiers[0]["plugins"].pop())  # priority in tier 2: capacity's answer counts
    tiers[0]["plugins"].append({"name": "drf"})
    out = decide(objs + preemptor(1, name="r"), config("gangreclaim", actions="gangreclaim", tiers=tiers))
    assert evicted(out) == []


def test_a_podgroup_without_a_phase_is_pending():
    """job_info.go ``IsPending``: a PodGroup whose status has no phase is Pending, so
    gangpreempt skips it until Volcano's allocate (with no enqueue among the actions) has
    made it Inqueue. Alone, gangpreempt evicts nothing; after allocate it preempts."""
    objs = one_victim() + preemptor(1)
    del objs[-2]["status"]
    assert evicted(decide(objs, config("gangpreempt", actions="gangpreempt"))) == []
    assert evicted(decide(objs, config("gangpreempt", actions="allocate, gangpreempt"))) == ["victim"]


def test_a_pending_podgroup_preempts_only_after_allocate_made_it_inqueue():
    """allocate.go ``buildAllocateContext`` turns a Pending PodGroup Inqueue when no enqueue
    action is configured; gangpreempt skips a Pending one (``IsPending``). So the order of
    the actions counts: ``gangpreempt, allocate`` evicts nothing (allocate has not run yet),
    ``allocate, gangpreempt`` preempts."""
    objs = one_victim() + preemptor(1)
    objs[-2]["status"]["phase"] = "Pending"
    assert evicted(decide(objs, config("gangpreempt", actions="gangpreempt, allocate"))) == []
    assert evicted(decide(objs, config("gangpreempt", actions="allocate, gangpreempt"))) == ["victim"]


def test_max_domains_as_text_is_not_an_integer_and_keeps_8():
    """framework/arguments.go ``GetInt`` takes a YAML integer only: ``maxDomains: "1"`` is
    text, so Volcano keeps its 8 domains (and logs it): on the cluster of
    ``test_max_domains_caps_the_domains_tried`` domain b is reached and ``v-b`` goes, as
    with the default; the integer 1 stops at s. The warnings say so."""
    out = decide(capped_cluster(), config("gangpreempt", nta=True, allowWholeBundle=False, maxDomains="1"))
    assert evicted(out) == ["v-b"]
    assert any("maxDomains '1' is not an integer: 8 candidate domains" in w for w in out["warnings"])
    out = decide(capped_cluster(), config("gangpreempt", nta=True, allowWholeBundle=False, maxDomains=1))
    assert evicted(out) == []


def test_a_roles_ready_pods_include_its_pending_pods_that_request_nothing():
    """bundle.go ``CreateJobBundles``: a role's ready count (``roleReady``) includes its
    Pending pods whose request is empty, as gang's CheckTaskReady does. Victim v
    (minMember 3, minTaskMember m 1, w 2) runs m-0, m-1, w-0, w-1 (one per node, w's at
    the lower pod priority, so first in the split) and has w-2 Pending with no request:
    role w has 3 ready for its 2, so w-0 is the Safe pod (without w-2 it would be m-0)
    and is the one evicted for the preemptor."""
    role = "volcano.sh/task-spec"
    objs = [N("n-m0"), N("n-m1"), N("n-w0"), N("n-w1"), queue("q1"), *CLASSES,
            PG("v", min_member=3, mtm={"m": 1, "w": 2}),
            T("m-0", "v", node="n-m0", prio=5, labels={role: "m"}), T("m-1", "v", node="n-m1", prio=5, labels={role: "m"}),
            T("w-0", "v", node="n-w0", prio=0, labels={role: "w"}), T("w-1", "v", node="n-w1", prio=0, labels={role: "w"}),
            pod("w-2", ns="ns", cpu=None, memory=None, group="v", priority=0, labels={role: "w"})]  # fmt: skip
    out = decide(objs + preemptor(1), config("gangpreempt", actions="gangpreempt"))
    assert evicted(out) == ["w-0"]
    assert nominated(out) == {"p-0": "n-w0"}


@pytest.mark.parametrize("cache, p2_node", [(None, "n2"), (False, "n1")], ids=["default-on", "off"])
def test_the_simulation_keeps_a_predicate_error_cache_per_role(cache, p2_node):
    """simulate.go ``runSimulateTrialAtHyperNode`` predicates each pod through one
    ``PredicateHelper`` with allocate's ``predicateErrorCacheEnable`` (default true,
    ``gangpreempt.go parseArguments``): a node a pod failed is failed for the later pods of its
    role. n1 (2 CPU) is free, n2 (4 CPU) runs the victim; the job's ``worker`` pods are p1
    (3 CPU, pod priority 10: first) and p2 (1 CPU). p1 fails n1 and goes to n2; with the cache
    p2 is not tried on n1 and joins it on n2; without it p2 takes n1's idle room."""
    role = {"volcano.sh/task-spec": "worker"}
    objs = [N("n1", cpu="2"), N("n2", cpu="4"), queue("q1"), *CLASSES, PG("v"), T("v-0", "v", node="n2", cpu="4"),
            PG("p", min_member=2, pc="p100", phase="Inqueue", created="2026-11-23T11:00:00Z"),
            T("p1", "p", cpu="3", prio=10, labels=role), T("p2", "p", cpu="1", prio=1, labels=role)]  # fmt: skip
    conf = config("gangpreempt", actions="allocate, gangpreempt")
    if cache is not None:
        conf["configurations"] = [{"name": "allocate", "arguments": {"predicateErrorCacheEnable": cache}}]
    out = decide(objs, conf)
    assert evicted(out) == ["v-0"]
    assert nominated(out) == {"p1": "n2", "p2": p2_node}
    no_warnings(out)
