"""Volcano's session-level and small-plugin tests, transcribed.

Source: volcano-sh/volcano at ed72c7c815a9fd547a787134676f73d42e9d049c:

* ``pkg/scheduler/framework/session_plugins_test.go`` (``TestUnifiedEvictable_*``,
  ``TestHyperNodeGradientForJobFn_*``, ``TestFilterOutPreemptMayNotHelpNodes``)
* ``pkg/scheduler/framework/session_plugins_victim_order_test.go``
  (``TestBuildVictimsPriorityQueueJobTieBreaksWithTaskOrder``)
* ``pkg/scheduler/plugins/priority/priority_test.go`` (``TestUnifiedEvictableFn_GangReclaimPermitsAll``)
* ``pkg/scheduler/plugins/conformance/conformance_test.go`` (``TestConformancePlugin``)
* ``pkg/scheduler/plugins/overcommit/overcommit_test.go`` (``TestOvercommitPlugin``)
* ``pkg/scheduler/plugins/sla/sla_test.go`` (``TestSlaPlugin``)

How cases map to decisions:

* Plugin tests (priority, conformance, overcommit, sla, the victim order, the preempt node
  filter) are posted to ``/v1/decisions`` as Kubernetes objects with a posted
  ``volcano-scheduler.conf`` whose tiers hold the plugin under test (and ``predicates``), and
  the answer's evictions / enqueued jobs / bindings are compared with what Go's session gives
  on that cluster. Where Go's case does not separate two answers (e.g. a 2-CPU job under both
  the 0.8 and the 1.2 overcommit factor), the cluster is sized so that it does; the rule is
  Go's.
* ``TestUnifiedEvictable_*`` and ``TestHyperNodeGradientForJobFn_*`` register fake plugin
  functions on a bare Go ``Session``; no configuration gives those plugins, so these tests
  call Gangplank's own functions (``app.eviction.volcano_gang.unified_evictable``, the one
  the ``gangpreempt`` / ``gangreclaim`` actions use, and ``Session.hyper_node_gradients``)
  on a session whose hooks are replaced by fakes. The fake plugins carry the names of real
  UnifiedEvictable plugins (``priority``, ``conformance``, ``gang``) because
  ``unified_evictable`` only asks those Volcano registers one for.
* ``TestUnifiedEvictableFn_GangReclaimPermitsAll`` calls ``UnifiedEvictable`` with a job
  that is in no session; here the preemptor is a pending pod of a priority-500 PodGroup, and
  the real ``priority`` plugin answers (also shown end to end with ``gangpreempt``).

Not transcribed:

* ``session_test.go TestGetPodGroupPhase`` and ``gang_test.go
  TestShouldSkipUnschedulableForReleasing``: both compute the PodGroup status Volcano writes
  back (phase, Unschedulable condition) at session close; Gangplank's answer carries no
  PodGroup phase or condition (``jobs[].state`` is its own summary), so no answer shows them.
* ``TestUnifiedEvictable_ContextPassedThrough``'s ``Job`` and ``HyperNode`` fields: Gangplank's
  plugin functions receive ``(preemptor, candidates, kind)``, the job being the preemptor's,
  the domain not passed (no Volcano plugin reads it); the ``Kind`` part is transcribed.
* ``TestBuildVictimsPriorityQueueJobTieBreaksWithTaskOrder`` "preemptor job missing": a
  preemptor whose job is not in the session cannot be posted (every pending pod is a job's).
* ``TestFilterOutPreemptMayNotHelpNodes`` "p1,p3 has node fit error": the fit errors are
  injected by hand into ``job.NodesFitErrors`` per task; in a decision they come from
  allocate's predicates, so the case reduces to the node-selector case transcribed.
* ``TestSlaPlugin``'s ``JobEnqueueable`` half: in every case Go's answer is "enqueueable"
  (a permit or an abstention, and no other plugin votes), which no cluster can contradict.
* ``drf/hdrf_test.go TestHDRF``: the Go test cannot fail (it compares a
  ``map[string]*Resource`` with a ``*Resource`` and fails only when they are equal), and
  Gangplank refuses drf's ``enableHierarchy: true`` with a 422 (README, ``app/plugins/drf.py``
  docstring), so there is no answer to compare.
* ``priority_test.go TestPreempt`` is already transcribed in ``test_volcano_upstream_eviction.py``.

Differences found by this transcription (strict xfails at first) and fixed in session 40: the
legacy victim queue ordered jobs of equal plugin order by creation time and ID (Go's
``BuildVictimsPriorityQueue`` uses ``JobOrderCompareFn``, plugin answers only, then task order:
``Session.job_order_compare``); system-critical pods were never legacy victims (Volcano leaves
that to ``conformance``, ``preempt.go:198-205``: now only under the ``gangplank`` profile); a
non-string ``sla-waiting-time`` argument was read as a duration (Volcano's ``.(string)`` gives "",
no global waiting time); sla now also reads ``volcano.sh/sla-waiting-time`` first, takes a
non-positive or unreadable annotation as absent, and votes in JobPipelined.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.eviction.volcano_gang import unified_evictable
from app.framework.config import load_config
from app.framework.session import Session
from app.ingest.request import read_request
from app.plugins import PLUGINS
from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
from app.settings import Settings
from tests.kube import node, pod, podgroup, post_decision, priority_class, queue, request

PREEMPTABLE = "volcano.sh/preemptable"


decide = post_decision


def evicted(out: dict) -> list[str]:
    return sorted(e["pod"] for e in out["evictions"])


def bound(out: dict) -> list[str]:
    return sorted(b["pod"] for b in out["bindings"])


def tiers(*first: dict, actions: str = "allocate, preempt") -> dict:
    return {"actions": actions, "tiers": [{"plugins": list(first)}, {"plugins": [{"name": "predicates"}]}]}


def N(name: str, cpu: str, labels: dict[str, str] | None = None) -> dict:
    return node(name, cpu=cpu, memory="16Gi", gpu=None, labels=labels)


def session(objects: list[dict], conf: dict) -> Session:
    req = read_request(request(objects), Settings())
    cfg = load_config(conf, known_actions=KNOWN_ACTIONS, action_aliases={}, known_plugins=KNOWN_PLUGINS)
    return Session(req.cluster, cfg, PLUGINS)


# -- session_plugins_test.go: UnifiedEvictable with fake plugins -------------------------------
def _abc_session(n_tiers: int = 1) -> tuple[Session, Any, list[Any]]:
    """A session of three running 1-CPU pods a, b, c and a pending preemptor; its
    ``unified_evictable`` hooks are replaced by the caller."""
    objs = [N("n1", "4"), queue("q1"), podgroup("v", queue="q1", phase="Running"), podgroup("p", queue="q1")]
    objs += [pod(x, node="n1", group="v", memory=None) for x in "abc"]
    objs += [pod("p-0", group="p", memory=None)]
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "predicates"}]} for _ in range(n_tiers)]}
    ssn = session(objs, conf)
    idx = ssn.cluster.task_index
    return ssn, idx["default/p-0"], [idx[f"default/{x}"] for x in "abc"]


def _fake(ssn: Session, point: str, tiers_: list[list[tuple[str, Any]]]) -> None:
    ssn._hooks[point] = tiers_
    ssn._flat.pop(point, None)


def names(tasks: list[Any] | None) -> list[str]:
    return [t.name for t in tasks or []]


def test_unified_evictable_intersects_the_answers_of_one_tier():
    """session_plugins_test.go TestUnifiedEvictable_TierWalkAndIntersection: two plugins of
    one tier keep {a, b} and {b, c}; the tier's victims are their intersection, {b}.
    (Gangplank's ``unified_evictable``, with fake plugin functions.)"""
    ssn, p, (a, b, c) = _abc_session()
    _fake(ssn, "unified_evictable", [[("priority", lambda pr, cand, kind: [a, b]),
                                      ("conformance", lambda pr, cand, kind: [b, c])]])  # fmt: skip
    assert names(unified_evictable(ssn, p, [a, b, c], "preempt")) == ["b"]


def test_unified_evictable_an_abstaining_plugin_is_skipped():
    """session_plugins_test.go TestUnifiedEvictable_AbstainSkipped: the first plugin abstains,
    the second permits {a}: the answer is {a}. (Gangplank's ``unified_evictable``.)"""
    ssn, p, (a, _, _) = _abc_session()
    _fake(ssn, "unified_evictable", [[("priority", lambda pr, cand, kind: None),
                                      ("conformance", lambda pr, cand, kind: [a])]])  # fmt: skip
    assert names(unified_evictable(ssn, p, [a], "preempt")) == ["a"]


def test_unified_evictable_an_empty_answer_leaves_its_tier_to_the_next():
    """session_plugins_test.go TestUnifiedEvictable_EmptyCandidatesBlocksTier: a tier-1
    plugin permitting nothing ends its tier undecided (the next plugin of that tier is not
    asked); tier 2's plugin permits {a}: the answer is {a}. (Gangplank's ``unified_evictable``.)"""
    ssn, p, (a, _, _) = _abc_session(2)
    asked: list[str] = []

    def permitter(pr, cand, kind):
        asked.append("permitter")
        return [a]

    _fake(ssn, "unified_evictable", [[("priority", lambda pr, cand, kind: []), ("conformance", permitter)],
                                     [("gang", lambda pr, cand, kind: [a])]])  # fmt: skip
    assert names(unified_evictable(ssn, p, [a], "reclaim")) == ["a"]
    assert asked == []


def test_unified_evictable_without_plugins_permits_nothing():
    """session_plugins_test.go TestUnifiedEvictable_NoPluginsReturnsNil: a tier whose plugin
    registers no UnifiedEvictable function: no victim. (Gangplank's ``unified_evictable``.)"""
    ssn, p, (a, _, _) = _abc_session()
    _fake(ssn, "unified_evictable", [[]])
    assert unified_evictable(ssn, p, [a], "preempt") == []
    ssn._hooks.pop("unified_evictable")
    assert unified_evictable(ssn, p, [a], "preempt") == []


@pytest.mark.parametrize("kind", ["preempt", "reclaim"])
def test_unified_evictable_passes_the_eviction_kind_through(kind):
    """session_plugins_test.go TestUnifiedEvictable_ContextPassedThrough (the ``Kind`` field):
    the plugin receives the kind of eviction the action asked for, and the preemptor.
    (Gangplank's ``unified_evictable``.)"""
    ssn, p, (a, _, _) = _abc_session()
    seen: list[tuple[Any, str]] = []

    def spy(pr, cand, k):
        seen.append((pr, k))
        return list(cand)

    _fake(ssn, "unified_evictable", [[("priority", spy)]])
    assert names(unified_evictable(ssn, p, [a], kind)) == ["a"]
    assert seen == [(p, kind)]


# -- session_plugins_test.go: HyperNodeGradientForJobFn ----------------------------------------
def test_hypernode_gradient_the_first_plugin_wins_and_gets_the_purpose():
    """session_plugins_test.go TestHyperNodeGradientForJobFn_ForwardsPurposeAndKeepsWinnerTakesAll:
    two plugins register a gradient function; the first one's answer is the session's, and it
    receives the search purpose. (Gangplank's ``Session.hyper_node_gradients``, fake plugins.)"""
    ssn, p, _ = _abc_session()
    got: list[str] = []

    def p1(job, sg, root, purpose):
        got.append(purpose)
        return [[101]]

    _fake(ssn, "hyper_node_gradient", [[("p1", p1), ("p2", lambda job, sg, root, purpose: [[102]])]])
    assert ssn.hyper_node_gradients(p.job, None, 7, "evict") == [[101]]
    assert got == ["evict"]


def test_hypernode_gradient_without_a_plugin_is_the_root_alone():
    """session_plugins_test.go TestHyperNodeGradientForJobFn_NoPluginKeepsCurrentFallback: no
    plugin registers a gradient function: the gradient is ``[[root]]``.
    (Gangplank's ``Session.hyper_node_gradients``.)"""
    ssn, p, _ = _abc_session()
    ssn._hooks.pop("hyper_node_gradient", None)
    ssn._flat.pop("hyper_node_gradient", None)
    assert ssn.hyper_node_gradients(p.job, None, 7, "evict") == [[7]]


# -- session_plugins_test.go: TestFilterOutPreemptMayNotHelpNodes -------------------------------
def _selector_case(selector: dict[str, str]) -> list[dict]:
    """Node n1 (2 CPU, nodeRole=worker) is full of a low-priority job; the preemptor p1 (2 CPU,
    priority 1000) selects ``selector``."""
    return [N("n1", "2", {"nodeRole": "worker"}), queue("c1"), priority_class("low", 100),
            priority_class("high", 1000),
            podgroup("v", ns="c1", queue="c1", phase="Running", priority_class="low"),
            pod("v-0", ns="c1", node="n1", cpu="2", memory=None, group="v", annotations={PREEMPTABLE: "true"}),
            podgroup("pg1", ns="c1", queue="c1", priority_class="high"),
            pod("p1", ns="c1", cpu="2", memory=None, group="pg1", role="master",
                extra_spec={"nodeSelector": selector})]  # fmt: skip


def test_preempt_skips_a_node_the_preemptor_cannot_use():
    """session_plugins_test.go TestFilterOutPreemptMayNotHelpNodes "master predicate failed:
    node selector does not match": a node failing the preemptor's node selector
    (UnschedulableAndUnresolvable) is no candidate for preemption: nothing is evicted there."""
    out = decide(_selector_case({"nodeRole": "master"}), tiers({"name": "priority"}, {"name": "conformance"}))
    assert evicted(out) == []
    assert out["nominations"] == []


def test_preempt_uses_a_node_whose_failure_is_resources():
    """session_plugins_test.go TestFilterOutPreemptMayNotHelpNodes "all are helpful for
    preemption": a node that fails only on resources helps: its victim is evicted and the
    preemptor nominated there."""
    out = decide(_selector_case({"nodeRole": "worker"}), tiers({"name": "priority"}, {"name": "conformance"}))
    assert evicted(out) == ["c1/v-0"]
    assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("c1/p1", "n1")]


# -- session_plugins_victim_order_test.go ----------------------------------------------------
def test_victims_of_equal_job_order_go_by_task_order():
    """session_plugins_victim_order_test.go TestBuildVictimsPriorityQueueJobTieBreaksWithTaskOrder
    "preemptor job found": two victim jobs of equal priority (pg-low created before pg-high), one
    1-CPU task each (task priorities 1 and 100) filling node n1; a priority-100 preemptor needs
    1 CPU: JobOrderCompareFn ties, so the task order decides and p-low (priority 1) is the
    first victim, the only one evicted."""
    objs = [N("n1", "2"), queue("q1"), priority_class("p100", 100),
            podgroup("pg-high", ns="ns1", queue="q1", phase="Running", created="2026-11-23T09:00:20Z"),
            podgroup("pg-low", ns="ns1", queue="q1", phase="Running", created="2026-11-23T09:00:10Z"),
            pod("p-high", ns="ns1", node="n1", memory=None, group="pg-high", priority=100),
            pod("p-low", ns="ns1", node="n1", memory=None, group="pg-low", priority=1),
            podgroup("pg-preemptor", ns="ns1", queue="q1", priority_class="p100", phase="Inqueue"),
            pod("p-preemptor", ns="ns1", memory=None, group="pg-preemptor", priority_class="p100", priority=100)]  # fmt: skip
    out = decide(objs, tiers({"name": "priority"}))
    assert evicted(out) == ["ns1/p-low"]


# -- priority_test.go TestUnifiedEvictableFn_GangReclaimPermitsAll ------------------------------
def _high_low(pre_cpu: str = "1") -> list[dict]:
    return [N("node1", "2"), queue("q1"), priority_class("low-priority", 100), priority_class("high-priority", 1000),
            priority_class("mid", 500),
            podgroup("pg-high", ns="ns1", queue="q1", phase="Running", priority_class="high-priority"),
            podgroup("pg-low", ns="ns2", queue="q1", phase="Running", priority_class="low-priority"),
            pod("high-task", ns="ns1", node="node1", memory=None, group="pg-high", annotations={PREEMPTABLE: "true"}),
            pod("low-task", ns="ns2", node="node1", memory=None, group="pg-low", annotations={PREEMPTABLE: "true"}),
            podgroup("reclaimer", ns="ns3", queue="q1", phase="Inqueue", min_member=1, priority_class="mid"),
            pod("r-0", ns="ns3", cpu=pre_cpu, memory=None, group="reclaimer", priority_class="mid")]  # fmt: skip


@pytest.mark.parametrize("kind, victims", [("reclaim", ["high-task", "low-task"]), ("preempt", ["low-task"])])
def test_priority_gang_reclaim_permits_every_priority(kind, victims):
    """priority_test.go TestUnifiedEvictableFn_GangReclaimPermitsAll: for a priority-500 job,
    priority's UnifiedEvictable permits both candidates (priorities 1000 and 100) in a gang
    reclaim, and only the lower-priority one in a gang preempt. (Gangplank's
    ``unified_evictable`` with the real ``priority`` plugin, the only one of its tier.)"""
    ssn = session(_high_low(), {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority"}]}]})
    idx = ssn.cluster.task_index
    cands = [idx["ns1/high-task"], idx["ns2/low-task"]]
    assert names(unified_evictable(ssn, idx["ns3/r-0"], cands, kind)) == victims


def test_priority_gang_preempt_does_not_take_a_higher_priority_job():
    """priority_test.go TestUnifiedEvictableFn_GangReclaimPermitsAll, the GangPreempt half end to
    end: the priority-500 job needs 2 CPU on node1, held by a priority-1000 and a priority-100
    task; only the latter may go, which frees 1 CPU: gangpreempt evicts nothing."""
    conf = {"actions": "allocate, gangpreempt", "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
        {"plugins": [{"name": "predicates"}]}]}  # fmt: skip
    assert evicted(decide(_high_low("2"), conf)) == []
    assert evicted(decide(_high_low("1"), conf)) == ["ns2/low-task"]


# -- conformance_test.go ---------------------------------------------------------------------
def _conformance(target: str) -> list[dict]:
    """n1 runs a kube-system pod, n2 a pod of test-namespace (both priority 10, 1 CPU, nodes of
    1 CPU); the priority-100 preemptor needs 1 CPU and selects node ``target``."""
    return [N("n1", "1"), N("n2", "1"), queue("q1"), priority_class("p10", 10), priority_class("p100", 100),
            podgroup("pg1", ns="kube-system", queue="q1", phase="Running", priority_class="p10"),
            pod("test-pod", ns="kube-system", node="n1", memory=None, group="pg1", priority_class="p10"),
            podgroup("pg1", ns="test-namespace", queue="q1", phase="Running", priority_class="p10"),
            pod("test-pod", ns="test-namespace", node="n2", memory=None, group="pg1", priority_class="p10"),
            podgroup("pre", ns="test-namespace", queue="q1", priority_class="p100"),
            pod("pre-0", ns="test-namespace", memory=None, group="pre", priority_class="p100",
                extra_spec={"nodeSelector": {"kubernetes.io/hostname": target}})]  # fmt: skip


@pytest.mark.parametrize("target, victims", [("n1", []), ("n2", ["test-namespace/test-pod"])])
def test_conformance_never_evicts_a_kube_system_pod(target, victims):
    """conformance_test.go TestConformancePlugin: of a kube-system pod and a test-namespace pod,
    only the latter may be preempted (conformance alone, with priority to order)."""
    out = decide(_conformance(target), tiers({"name": "priority"}, {"name": "conformance"}))
    assert evicted(out) == victims


# -- overcommit_test.go ----------------------------------------------------------------------
def _overcommit(min_res: dict[str, str] | None, capability: dict[str, str] | None = None) -> list[dict]:
    """Go's n1 (2 CPU, 4Gi) and n2 (4 CPU, 16Gi): 6 CPU, 20Gi; a Pending PodGroup pg of minMember
    2 asking ``min_res`` in queue c1."""
    pg = podgroup("pg1", ns="test-namespace", queue="c1", min_member=2, phase="Pending")
    if min_res is not None:
        pg["spec"]["minResources"] = min_res
    return [node("n1", cpu="2", memory="4Gi", gpu=None), node("n2", cpu="4", memory="16Gi", gpu=None),
            queue("c1", capability=capability), pg,
            *(pod(f"pg1-{i}", ns="test-namespace", cpu="100m", memory="100Mi", group="pg1") for i in range(2))]  # fmt: skip


def _enqueued(objs: list[dict], args: dict[str, Any]) -> list[str]:
    conf = {"actions": "enqueue", "tiers": [{"plugins": [{"name": "overcommit", "arguments": args}]}]}
    return decide(objs, conf)["enqueued"]


@pytest.mark.parametrize("factor, cpu, admitted", [
    (1.2, "2", True),    # "overCommitFactor is more than 0"
    (1.2, "7", True),    # 7 <= 6 x 1.2
    (0.8, "2", True),    # "overCommitFactor is less than 0"
    (0.8, "7", True),    # a factor below 1 is replaced by 1.2, not used: 7 > 6 x 0.8
    (1.2, "20", False),  # "when the required resources of pg are too large"
])  # fmt: skip
def test_overcommit_admits_within_capacity_times_factor(factor, cpu, admitted):
    """overcommit_test.go TestOvercommitPlugin: a job is enqueueable when its minResources fit
    in the cluster's allocatable x overcommit-factor (1.2 when the factor is below 1); 20 CPU
    does not fit 6 x 1.2."""
    got = _enqueued(_overcommit({"cpu": cpu, "memory": "2G"}), {"overcommit-factor": factor})
    assert got == (["test-namespace/pg1"] if admitted else [])


def test_overcommit_admits_a_job_without_min_resources():
    """overcommit_test.go TestOvercommitPlugin "when pg does not fill MinResources": a job
    without minResources is best effort, always admitted (the queue's 200m capability is
    not overcommit's business)."""
    got = _enqueued(_overcommit(None, {"cpu": "200m", "memory": "0.5G"}), {"overcommit-factor": 1.2})
    assert got == ["test-namespace/pg1"]


@pytest.mark.parametrize("held, cpu, admitted", [("3", "3", True), ("3", "5", False)])
def test_overcommit_counts_inqueue_jobs_min_resources(held, cpu, admitted):
    """overcommit_test.go TestOvercommitPlugin (its PodGroups are Inqueue, and it calls
    JobEnqueued before JobEnqueueable): an Inqueue job's minResources are counted against the
    6 x 1.2 = 7.2 CPU at session open, so a pending job asking ``cpu`` is admitted only when
    ``held + cpu <= 7.2``."""
    objs = _overcommit({"cpu": cpu, "memory": "1G"})
    pg = podgroup("inq", ns="test-namespace", queue="c1", phase="Inqueue")
    pg["spec"]["minResources"] = {"cpu": held, "memory": "1G"}
    objs += [pg, pod("inq-0", ns="test-namespace", cpu="100m", memory="100Mi", group="inq")]
    got = _enqueued(objs, {"overcommit-factor": 1.2})
    assert got == (["test-namespace/pg1"] if admitted else [])


def test_overcommit_counts_the_jobs_it_admitted_in_the_same_session():
    """overcommit_test.go TestOvercommitPlugin (JobEnqueued adds an admitted job's
    minResources): two pending jobs of 4 CPU each; the first admitted holds 4 of the 7.2 CPU,
    so the second (4 + 4 > 7.2) stays pending."""
    objs = [node("n1", cpu="2", memory="4Gi", gpu=None), node("n2", cpu="4", memory="16Gi", gpu=None), queue("c1")]
    for name, created in (("a", "2026-11-23T09:00:00Z"), ("b", "2026-11-23T09:00:10Z")):
        pg = podgroup(name, ns="test-namespace", queue="c1", phase="Pending", created=created)
        pg["spec"]["minResources"] = {"cpu": "4"}
        objs += [pg, pod(f"{name}-0", ns="test-namespace", cpu="100m", memory=None, group=name)]
    assert _enqueued(objs, {"overcommit-factor": 1.2}) == ["test-namespace/a"]


# -- sla_test.go -----------------------------------------------------------------------------
def _sla(annotated: str, plain: str) -> list[dict]:
    """One 1-CPU node; two pending one-pod jobs created at the same time: ``annotated`` carries
    ``sla-waiting-time: 1h`` (Go's job2, WaitingTime 1h), ``plain`` none (job1)."""
    objs = [N("n", "1"), queue("q1")]
    for name, ann in ((annotated, {"sla-waiting-time": "1h"}), (plain, None)):
        objs += [podgroup(name, queue="q1", phase="Inqueue", annotations=ann, created="2026-11-23T09:00:00Z"),
                 pod(f"{name}-0", memory=None, group=name, created="2026-11-23T09:00:00Z")]  # fmt: skip
    return objs


def _sla_bound(objs: list[dict], args: dict[str, Any]) -> list[str]:
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "sla", "arguments": args}]},
                                             {"plugins": [{"name": "predicates"}]}]}  # fmt: skip
    return bound(decide(objs, conf))


def test_sla_global_waiting_time_applies_to_jobs_without_one():
    """sla_test.go TestSlaPlugin "sla normal placement": with ``sla-waiting-time: 3m`` the job
    without an annotation waits 3m, the annotated one 1h; the earlier deadline goes first, so
    the plain job gets the node (the UID fallback would pick ``a-sla``)."""
    assert _sla_bound(_sla("a-sla", "b-plain"), {"sla-waiting-time": "3m"}) == ["default/b-plain-0"]


def test_sla_without_a_global_waiting_time_a_job_with_one_goes_first():
    """sla_test.go TestSlaPlugin "none placement": no argument: only the annotated job has a
    deadline, and goes first (the UID fallback would pick ``b-plain``)."""
    assert _sla_bound(_sla("z-sla", "b-plain"), {}) == ["default/z-sla-0"]


def test_sla_a_non_string_waiting_time_is_ignored():
    """sla_test.go TestSlaPlugin "sla error type placement": ``sla-waiting-time: 1`` (not a
    string) is ignored: as without an argument, the annotated job goes first."""
    assert _sla_bound(_sla("z-sla", "b-plain"), {"sla-waiting-time": 1}) == ["default/z-sla-0"]


def test_without_conformance_a_kube_system_pod_may_be_preempted():
    """conformance_test.go TestConformancePlugin, the other side: the rule is the plugin's, so
    with ``priority`` alone the kube-system pod on n1 (priority 10) is a victim of the
    priority-100 preemptor like any other."""
    out = decide(_conformance("n1"), tiers({"name": "priority"}))
    assert evicted(out) == ["kube-system/test-pod"]
