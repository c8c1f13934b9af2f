"""KAI-Scheduler's Go unit tests for the ``minruntime`` plugin, transcribed.

Sources (NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092):

* ``pkg/scheduler/plugins/minruntime/minruntime_test.go`` — the victim filters, the
  scenario validators (elastic victims) and ``parseMinRuntime``;
* ``pkg/scheduler/plugins/minruntime/resolver_test.go`` — which min runtime applies
  (preempt: victim queue upwards; reclaim: ``queue`` or ``lca`` method) and the queue paths;
* rules from ``minruntime.go`` and ``resolver.go``; the Go queue tree is
  ``createTestQueues`` in ``resolver_test.go``.

Each Go ``It`` is one test here (the ``parseMinRuntime`` loops are one parametrize id per
value). The Go tests call the plugin's functions on hand-built ``PodGroupInfo``s; here the
same queues and jobs are KAI objects read by ingest, a ``kai`` profile session is opened
directly, and the checks go through what our KAI actions call: ``KaiAction.runtime_filter``
(the victim filter), ``KaiAction.runtime_validator`` (the scenario validator),
``MinRuntime.min_runtime`` (the resolver) and ``MinRuntime._chain`` (the queue path).
Go's ``time.Now()`` is the request's ``now``; a start "N seconds ago" is the PodGroup
annotation ``kai.scheduler/last-start-timestamp`` N seconds before it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import orjson
import pytest

from app.framework.config import load_config
from app.framework.session import Session
from app.ingest.request import read_request
from app.kai.actions import KaiPreempt, KaiReclaim
from app.kai.jobs import View
from app.kai.scenarios import Scenario
from app.plugins import PLUGINS, PROFILE_PLUGINS
from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
from app.settings import Settings
from tests.kube import NOW, node, pod, request

S = Settings()
NS = "ml"
NOW_DT = dt.datetime.fromisoformat(NOW.replace("Z", "+00:00"))

# createTestQueues (resolver_test.go): name -> (parent, preemptMinRuntime, reclaimMinRuntime)
GO_QUEUES: dict[str, tuple[str | None, str | None, str | None]] = {
    "dev": (None, "5s", "10s"),
    "prod": (None, "20s", "30s"),
    "research": (None, "4s", "6s"),
    "dev-team1": ("dev", None, "8s"),
    "dev-team2": ("dev", "3s", None),
    "prod-team1": ("prod", None, "25s"),
    "prod-team2": ("prod", "15s", "35s"),
    "research-project": ("research", "7s", "9s"),
}

# the resolver_test.go BeforeEach defaults, and the minruntime_test.go ones
RESOLVER_DEFAULTS = {"defaultPreemptMinRuntime": "2s", "defaultReclaimMinRuntime": "1s"}
PLUGIN_DEFAULTS = {"defaultPreemptMinRuntime": "5s", "defaultReclaimMinRuntime": "3s", "reclaimResolveMethod": "lca"}


# -- builders -----------------------------------------------------------------------------
def kai_queue(name: str, parent: str | None, preempt: str | None, reclaim: str | None) -> dict[str, Any]:
    res = {r: {"quota": -1, "limit": -1, "overQuotaWeight": 1} for r in ("gpu", "cpu", "memory")}
    spec: dict[str, Any] = {"resources": res}
    if parent:
        spec["parentQueue"] = parent
    if preempt is not None:
        spec["preemptMinRuntime"] = preempt
    if reclaim is not None:
        spec["reclaimMinRuntime"] = reclaim
    return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": name}, "spec": spec}


def go_queues(tree: dict[str, tuple[str | None, str | None, str | None]] | None = None) -> list[dict[str, Any]]:
    return [kai_queue(n, *v) for n, v in (tree if tree is not None else GO_QUEUES).items()]


def stamp(seconds_ago: float) -> str:
    return (NOW_DT - dt.timedelta(seconds=seconds_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


def pod_group(name: str, queue: str, started_ago: float | None, min_available: int, pods: int) -> list[dict[str, Any]]:
    """``createPodGroup`` (minruntime_test.go): a PodGroup with ``pods`` Running pods in the
    default sub-group, and a last start ``started_ago`` seconds before now (None: no start)."""
    ann = {} if started_ago is None else {"kai.scheduler/last-start-timestamp": stamp(started_ago)}
    objs = [{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
             "metadata": {"name": name, "namespace": NS, "annotations": ann},
             "spec": {"minMember": min_available, "queue": queue}}]  # fmt: skip
    objs += [pod(f"{name}-pod-{i}", ns=NS, node="n0", gpu=0, annotations={"pod-group-name": name}) for i in range(pods)]
    return objs


def open_session(objects: list[dict[str, Any]], args: dict[str, str]) -> Session:
    req = read_request(orjson.loads(orjson.dumps(request([node("n0", cpu="1000", memory="4Ti")] + objects))), S)
    cfg = load_config({"profile": "kai"}, known_actions=KNOWN_ACTIONS, action_aliases={}, known_plugins=KNOWN_PLUGINS)
    opts = [p for tier in cfg.tiers for p in tier if p.name == "minruntime"]
    assert len(opts) == 1
    opts[0].arguments = dict(args)
    return Session(req.cluster, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS)


def resolver(args: dict[str, str] | None = None, tree: dict | None = None) -> Any:
    """The minruntime plugin of a session over the Go queue tree (resolver_test.go's defaults)."""
    return open_session(go_queues(tree), {**RESOLVER_DEFAULTS, **(args or {})}).plugins["minruntime"]


def plugin_session(*jobs: list[dict[str, Any]], method: str = "lca") -> Session:
    """The minruntime_test.go BeforeEach: the Go queue tree, defaults 5s / 3s, ``method``."""
    objs = go_queues()
    for j in jobs:
        objs += j
    return open_session(objs, {**PLUGIN_DEFAULTS, "reclaimResolveMethod": method})


def job(ssn: Session, name: str) -> Any:
    return ssn.cluster.jobs[f"{NS}/{name}"]


def action(ssn: Session, kind: str) -> KaiPreempt | KaiReclaim:
    return (KaiPreempt if kind == "preempt" else KaiReclaim)(ssn, {})


def victim_filter(ssn: Session, kind: str, preemptor: str, victim: str) -> bool:
    """True: ``victim`` may be a victim of ``preemptor`` (Go's preemptFilterFn / reclaimFilterFn)."""
    return action(ssn, kind).runtime_filter(kind, job(ssn, preemptor), job(ssn, victim))


def hook_keeps(ssn: Session, kind: str, preemptor: str, victim: str) -> list[str]:
    """The same filter through the plugin's own victim hook (``preemptable`` / ``reclaimable``)."""
    p = job(ssn, preemptor).tasks[0]
    return [t.name for t in ssn.plugins["minruntime"].filter(p, list(job(ssn, victim).tasks), kind)]


def scenario_valid(ssn: Session, kind: str, preemptor: str, victim: str, n_victims: int) -> bool:
    """Go's preempt/reclaimScenarioValidatorFn with the victim's first ``n_victims`` pods."""
    v = job(ssn, victim)
    tasks = sorted(v.tasks, key=lambda t: t.name)[:n_victims]
    assert [t.name for t in tasks] == [f"{victim}-pod-{i}" for i in range(n_victims)]
    s = Scenario(View(job(ssn, preemptor)), [tasks])
    return action(ssn, kind).runtime_validator(kind, job(ssn, preemptor))(s)


# == minruntime_test.go: preemptFilterFn ===================================================
def test_preempt_filter_protects_a_non_elastic_victim_younger_than_its_queue_min_runtime() -> None:
    """minruntime_test.go, preemptFilterFn / when victim is protected by min-runtime /
    "should return false for non-elastic job": prod-team2 preempt min runtime 15s, started 10s ago."""
    ssn = plugin_session(pod_group("pending-job", "dev-team1", None, 1, 1), pod_group("victim-job", "prod-team2", 10, 1, 1))
    assert victim_filter(ssn, "preempt", "pending-job", "victim-job") is False
    assert hook_keeps(ssn, "preempt", "pending-job", "victim-job") == []


def test_preempt_filter_admits_a_victim_older_than_its_queue_min_runtime() -> None:
    """minruntime_test.go, preemptFilterFn / when victim is not protected by min-runtime /
    "should return true if victim started long ago": 15s min runtime, started 30s ago."""
    ssn = plugin_session(pod_group("pending-job", "dev-team1", None, 1, 1), pod_group("old-victim", "prod-team2", 30, 1, 1))
    assert victim_filter(ssn, "preempt", "pending-job", "old-victim") is True
    assert hook_keeps(ssn, "preempt", "pending-job", "old-victim") == ["old-victim-pod-0"]


def test_preempt_filter_admits_a_victim_without_a_start_time() -> None:
    """minruntime_test.go, preemptFilterFn / when victim is not protected by min-runtime /
    "should return true if victim has no start time"."""
    ssn = plugin_session(pod_group("pending-job", "dev-team1", None, 1, 1), pod_group("no-start-victim", "prod-team2", None, 1, 1))
    assert victim_filter(ssn, "preempt", "pending-job", "no-start-victim") is True
    assert hook_keeps(ssn, "preempt", "pending-job", "no-start-victim") == ["no-start-victim-pod-0"]


# == minruntime_test.go: reclaimFilterFn ===================================================
def test_reclaim_filter_protects_a_non_elastic_victim_younger_than_its_reclaim_min_runtime() -> None:
    """minruntime_test.go, reclaimFilterFn / when victim is protected by min-runtime /
    "should return false for non-elastic job": dev-team1 reclaims from prod-team2, started 20s
    ago (lca across top-level queues: prod's 30s)."""
    ssn = plugin_session(pod_group("pending-job", "dev-team1", None, 1, 1), pod_group("victim-job", "prod-team2", 20, 1, 1))
    assert victim_filter(ssn, "reclaim", "pending-job", "victim-job") is False
    assert hook_keeps(ssn, "reclaim", "pending-job", "victim-job") == []


def test_reclaim_filter_admits_a_victim_older_than_its_reclaim_min_runtime() -> None:
    """minruntime_test.go, reclaimFilterFn / when victim is not protected by min-runtime /
    "should return true if victim started long ago": started 40s ago (past 30s / 35s)."""
    ssn = plugin_session(pod_group("pending-job", "dev-team1", None, 1, 1), pod_group("old-victim", "prod-team2", 40, 1, 1))
    assert victim_filter(ssn, "reclaim", "pending-job", "old-victim") is True
    assert hook_keeps(ssn, "reclaim", "pending-job", "old-victim") == ["old-victim-pod-0"]


def test_reclaim_filter_lca_method_uses_the_victims_top_level_queue_across_hierarchies() -> None:
    """minruntime_test.go, reclaimFilterFn / when using different resolve methods /
    "should use LCA method when configured": dev-team1 vs prod-team2, started 20s ago; the
    min runtime is prod's 30s, so the victim is protected."""
    ssn = plugin_session(pod_group("pending-job", "dev-team1", None, 1, 1), pod_group("victim-job", "prod-team2", 20, 1, 1),
                         method="lca")  # fmt: skip
    assert ssn.plugins["minruntime"].min_runtime("reclaim", "prod-team2", "dev-team1") == 30.0
    assert victim_filter(ssn, "reclaim", "pending-job", "victim-job") is False


def test_reclaim_filter_queue_method_uses_the_victims_own_queue() -> None:
    """minruntime_test.go, reclaimFilterFn / when using different resolve methods /
    "should use queue method when configured": the min runtime is prod-team2's 35s, started
    20s ago, so the victim is protected."""
    ssn = plugin_session(pod_group("pending-job", "dev-team1", None, 1, 1), pod_group("victim-job", "prod-team2", 20, 1, 1),
                         method="queue")  # fmt: skip
    assert ssn.plugins["minruntime"].min_runtime("reclaim", "prod-team2", "dev-team1") == 35.0
    assert victim_filter(ssn, "reclaim", "pending-job", "victim-job") is False


# == minruntime_test.go: scenario validators (elastic victims) =============================
def test_preempt_validator_allows_taking_a_protected_elastic_victims_surplus() -> None:
    """minruntime_test.go, preemptScenarioValidatorFn / "should return true if not enough
    tasks are being preempted": victim minAvailable 1 with 3 pods, started 10s ago (15s), 1 evicted."""
    ssn = plugin_session(pod_group("preemptor-job", "dev-team1", None, 1, 1), pod_group("victim-job", "prod-team2", 10, 1, 3))
    assert victim_filter(ssn, "preempt", "preemptor-job", "victim-job") is True  # elastic: left to the validator
    assert scenario_valid(ssn, "preempt", "preemptor-job", "victim-job", 1) is True


def test_preempt_validator_rejects_taking_a_protected_elastic_victim_below_its_minimum() -> None:
    """minruntime_test.go, preemptScenarioValidatorFn / "should return false if too many
    tasks would be preempted": victim minAvailable 2 with 3 pods, started 10s ago, 2 evicted."""
    ssn = plugin_session(pod_group("preemptor-job", "dev-team1", None, 1, 1), pod_group("victim-job", "prod-team2", 10, 2, 3))
    assert scenario_valid(ssn, "preempt", "preemptor-job", "victim-job", 2) is False


def test_reclaim_validator_allows_taking_a_protected_elastic_victims_surplus() -> None:
    """minruntime_test.go, reclaimScenarioValidatorFn / "should return true if not enough
    tasks are being reclaimed": victim minAvailable 1 with 3 pods, started 20s ago, 1 reclaimed."""
    ssn = plugin_session(pod_group("reclaimer-job", "dev-team1", None, 1, 1), pod_group("victim-job", "prod-team2", 20, 1, 3))
    assert victim_filter(ssn, "reclaim", "reclaimer-job", "victim-job") is True  # elastic: left to the validator
    assert scenario_valid(ssn, "reclaim", "reclaimer-job", "victim-job", 1) is True


def test_reclaim_validator_rejects_taking_a_protected_elastic_victim_below_its_minimum() -> None:
    """minruntime_test.go, reclaimScenarioValidatorFn / "should return false if too many
    tasks would be reclaimed": victim minAvailable 2 with 3 pods, started 20s ago, 2 reclaimed
    (the Go test runs reclaimFilterFn first; for an elastic victim it decides nothing)."""
    ssn = plugin_session(pod_group("reclaimer-job", "dev-team1", None, 1, 1), pod_group("victim-job", "prod-team2", 20, 2, 3))
    assert victim_filter(ssn, "reclaim", "reclaimer-job", "victim-job") is True
    assert scenario_valid(ssn, "reclaim", "reclaimer-job", "victim-job", 2) is False


# == minruntime_test.go: parseMinRuntime ===================================================
# str2duration (what KAI's PluginArguments.GetDuration uses): Go units plus d = 24h, w = 7d.
D, W = 86400.0, 7 * 86400.0
VALID = [("5s", 5.0), ("10s", 10.0), ("10m5s", 605.0), ("1m", 60.0), ("1.5s", 1.5), ("2m30s", 150.0), ("1h", 3600.0),
         ("1h30m", 5400.0), ("2h45m15s", 9915.0), pytest.param("2d4h30m", 2 * D + 4.5 * 3600, id="2d4h30m"),
         pytest.param("5w4d12h", 5 * W + 4 * D + 12 * 3600, id="5w4d12h")]  # fmt: skip


@pytest.mark.parametrize(("text", "seconds"), VALID)
def test_parse_min_runtime_reads_valid_durations(text: str, seconds: float) -> None:
    """minruntime_test.go, parseMinRuntime / "Sanity - parse passes" (Go: non-zero; the
    exact value is str2duration's)."""
    mr = resolver({"defaultReclaimMinRuntime": text})
    assert mr.default_reclaim == pytest.approx(seconds) and mr.default_reclaim != 0


@pytest.mark.parametrize("text", ["5", "1h2", "2h45m15", "abc", "1h-30m", "dfdsfdfdf"])
def test_parse_min_runtime_invalid_duration_falls_back_to_zero(text: str) -> None:
    """minruntime_test.go, parseMinRuntime / "Invalid durations should return zero"."""
    assert resolver({"defaultPreemptMinRuntime": text}).default_preempt == 0.0


@pytest.mark.parametrize("text", ["-5s", "-10m", "-1h", "-2d", "-3w"])
def test_parse_min_runtime_negative_duration_falls_back_to_zero(text: str) -> None:
    """minruntime_test.go, parseMinRuntime / "Invalid negative durations"."""
    assert resolver({"defaultReclaimMinRuntime": text}).default_reclaim == 0.0


def test_unreadable_default_min_runtime_is_zero_and_named_in_the_warnings() -> None:
    """Gangplank's rule beside parseMinRuntime: what KAI logs, the answer's warnings say."""
    mr = resolver({"defaultPreemptMinRuntime": "soon", "defaultReclaimMinRuntime": "-1h"})
    warnings = mr.ssn.cluster.warnings
    assert mr.default_preempt == 0.0 and mr.default_reclaim == 0.0
    assert any("defaultPreemptMinRuntime 'soon' is not a duration" in w for w in warnings)
    assert any("defaultReclaimMinRuntime '-1h' is negative" in w for w in warnings)


# == resolver_test.go: getPreemptMinRuntime ================================================
@pytest.mark.parametrize(("queue", "seconds"), [
    pytest.param("prod-team2", 15.0, id="queue-own-value-prod-team2"),
    pytest.param("prod-team1", 20.0, id="inherits-parent-prod-team1-from-prod"),
    pytest.param("dev-team1", 5.0, id="inherits-parent-dev-team1-from-dev"),
    pytest.param("prod", 20.0, id="top-level-own-value-prod"),
    pytest.param("research", 4.0, id="research-own-value"),
])  # fmt: skip
def test_preempt_min_runtime_is_the_first_set_from_the_victim_queue_upwards(queue: str, seconds: float) -> None:
    """resolver_test.go, getPreemptMinRuntime: "when queue has a set value (prod-team2)",
    "when queue inherits from parent (prod-team1 from prod)", "... (dev-team1 from dev)",
    "when top-level queue has a set value (prod)", "when research queue has a set value"."""
    assert resolver().min_runtime("preempt", queue, "") == seconds


def test_preempt_min_runtime_of_an_unknown_queue_is_the_default() -> None:
    """resolver_test.go, getPreemptMinRuntime / "when no queue is found": a queue (and its
    parent) not in the tree gets the default preempt min runtime, 2s."""
    assert resolver().min_runtime("preempt", "nonexistent", "") == 2.0


def test_preempt_min_runtime_without_a_queue_is_the_default() -> None:
    """resolver_test.go, getPreemptMinRuntime / "when queue is nil" (Go also returns an
    error; the observable rule is the default, 2s)."""
    assert resolver().min_runtime("preempt", "", "") == 2.0


# == resolver_test.go: getReclaimMinRuntime with queue method ==============================
@pytest.mark.parametrize(("reclaimer", "victim", "seconds"), [
    pytest.param("dev-team1", "prod-team2", 35.0, id="victim-queue-own-value"),
    pytest.param("dev-team1", "dev-team2", 10.0, id="victim-inherits-parent-dev"),
    pytest.param("dev-team1", "nonexistent", 1.0, id="victim-queue-not-found-default"),
])  # fmt: skip
def test_reclaim_min_runtime_queue_method_walks_up_from_the_victim_queue(reclaimer: str, victim: str, seconds: float) -> None:
    """resolver_test.go, getReclaimMinRuntime with queue method: "when victim queue has a
    set value", "when victim queue inherits from parent", "when victim queue is not found"."""
    assert resolver({"reclaimResolveMethod": "queue"}).min_runtime("reclaim", victim, reclaimer) == seconds


def test_reclaim_min_runtime_without_a_reclaimer_queue_is_the_default() -> None:
    """resolver_test.go, getReclaimMinRuntime with queue method / "when queue is nil":
    reclaimer queue missing, victim dev-team2 -> the default 1s (Go also returns an error)."""
    assert resolver({"reclaimResolveMethod": "queue"}).min_runtime("reclaim", "dev-team2", "nonexistent") == 1.0


# == resolver_test.go: getReclaimMinRuntimeLCA =============================================
@pytest.mark.parametrize(("reclaimer", "victim", "seconds"), [
    pytest.param("dev-team1", "prod-team2", 30.0, id="different-top-levels-victim-top-level-prod"),
    pytest.param("dev-team2", "dev-team1", 8.0, id="lca-dev-victim-dev-team1-own-value"),
    pytest.param("prod-team1", "prod-team2", 35.0, id="lca-prod-victim-prod-team2-own-value"),
    pytest.param("prod-team2", "prod-team2", 35.0, id="same-queue-own-value"),
    pytest.param("dev-team1", "research-project", 6.0, id="different-top-levels-victim-top-level-research"),
])  # fmt: skip
def test_reclaim_min_runtime_lca_method_starts_one_below_the_common_ancestor(reclaimer: str, victim: str, seconds: float) -> None:
    """resolver_test.go, getReclaimMinRuntimeLCA: "when pendingJob and victim are in
    different top-level queues", "when LCA is dev and victim is dev-team1 ...", "when LCA is
    prod and victim is prod-team2 ...", "when pendingJob and victim are the same queue",
    "when research queue is victim"."""
    assert resolver({"reclaimResolveMethod": "lca"}).min_runtime("reclaim", victim, reclaimer) == seconds


def test_reclaim_min_runtime_lca_without_queues_is_the_default() -> None:
    """resolver_test.go, getReclaimMinRuntimeLCA / "when queue is nil": both queues missing
    -> the default reclaim min runtime, 1s (Go also returns an error)."""
    assert resolver({"reclaimResolveMethod": "lca"}).min_runtime("reclaim", "", "") == 1.0


# == resolver_test.go: getQueueHierarchyPath ===============================================
@pytest.mark.parametrize(("queue", "path"), [
    pytest.param("dev", ["dev"], id="top-level-dev"),
    pytest.param("dev-team1", ["dev", "dev-team1"], id="leaf-dev-team1"),
    pytest.param("prod-team2", ["prod", "prod-team2"], id="other-branch-prod-team2"),
    pytest.param("research-project", ["research", "research-project"], id="research-project"),
])  # fmt: skip
def test_queue_path_runs_from_the_top_level_queue_down_to_the_queue(queue: str, path: list[str]) -> None:
    """resolver_test.go, getQueueHierarchyPath: "should return correct path for top-level
    queue (dev)", "... leaf queue (dev-team1)", "... different branch leaf queue
    (prod-team2)", "... research project queue"."""
    assert resolver()._chain(queue)[::-1] == path


def test_queue_path_of_a_queue_with_a_missing_parent_is_the_queue_alone() -> None:
    """resolver_test.go, getQueueHierarchyPath / "should handle queues with non-existent parent"."""
    tree = {**GO_QUEUES, "orphan": ("nonexistent", None, None)}
    assert resolver(tree=tree)._chain("orphan")[::-1] == ["orphan"]


# == resolver_test.go: getReclaimMinRuntime with both methods ==============================
@pytest.mark.parametrize(("victim", "by_queue", "by_lca"), [
    pytest.param("prod-team2", 35.0, 30.0, id="dev-team1-vs-prod-team2"),
    pytest.param("research-project", 9.0, 6.0, id="dev-team1-vs-research-project"),
])  # fmt: skip
def test_reclaim_min_runtime_queue_and_lca_methods_differ_across_hierarchies(victim: str, by_queue: float, by_lca: float) -> None:
    """resolver_test.go, getReclaimMinRuntime with both methods: "should return different
    values for different methods (pendingJob:dev-team1, victim:prod-team2)" and "should
    handle different hierarchies with the research queue (... victim:research-project)"."""
    assert resolver({"reclaimResolveMethod": "queue"}).min_runtime("reclaim", victim, "dev-team1") == by_queue
    assert resolver({"reclaimResolveMethod": "lca"}).min_runtime("reclaim", victim, "dev-team1") == by_lca


# == resolver_test.go: Edge cases ==========================================================
def test_edge_missing_queues_give_the_defaults() -> None:
    """resolver_test.go, Edge cases / with nil queue / "should handle nil queue gracefully":
    preempt 2s, reclaim (lca) 1s."""
    mr = resolver()
    assert mr.min_runtime("preempt", "", "") == 2.0
    assert mr.min_runtime("reclaim", "", "") == 1.0


def test_edge_orphaned_victim_queue_uses_its_own_reclaim_min_runtime() -> None:
    """resolver_test.go, Edge cases / with orphaned victim queue / "should use resolver
    default value when ancestor is missing" (the Go assertion: the orphan's own 7s)."""
    tree = {**GO_QUEUES, "orphan": ("nonexistent", None, "7s")}
    assert resolver({"reclaimResolveMethod": "lca"}, tree=tree).min_runtime("reclaim", "orphan", "dev-team1") == 7.0


def test_edge_top_level_victim_queue_without_reclaim_min_runtime_uses_the_default() -> None:
    """resolver_test.go, Edge cases / with top-level victim queue having no reclaim min
    runtime / "should fall back to default value": a tree of only no-reclaim <- leaf (neither
    sets one); dev-team1 (not in that tree) reclaims from leaf -> the default 1s."""
    tree = {"no-reclaim": (None, None, None), "leaf": ("no-reclaim", None, None)}
    assert resolver({"reclaimResolveMethod": "lca"}, tree=tree).min_runtime("reclaim", "leaf", "dev-team1") == 1.0


# Not transcribed as separate checks:
# * the protection caches (preemptProtectionCache, reclaimProtectionCache, and the
#   resolver's preemptMinRuntimeCache / reclaimMinRuntimeCache, reset in resolver_test.go's
#   AfterEach) are Go internals with no equivalent; no Go test asserts them.
# * the ``error`` values Go returns alongside the default for a nil queue have no
#   equivalent (min_runtime returns a number only); the default value is asserted instead.
