"""Volcano allocate's HyperNode decision recorder, transcribed as ``POST /v1/decisions`` answers.

Source: volcano-sh/volcano at ed72c7c815a9fd547a787134676f73d42e9d049c:

* ``pkg/scheduler/actions/allocate/recorder_test.go`` (every test), read with
  ``actions/allocate/recorder.go`` and its callers in ``actions/allocate/allocate.go``:
  ``allocateResources`` (302-325: a job with a hard topology or sub-group policies goes
  through ``allocateForJob``; only when its statement commits (``JobReady``) is
  ``UpdateDecisionToJob`` called, and a job with pods left is pushed back to be taken again
  in the same session), ``allocateForJob`` (367-463: ``SnapshotSubJobStatus`` before the
  job-level HyperNode trials, ``RecoverSubJobStatus`` after each, ``SaveJobDecision`` of the
  best), ``allocateForSubJob`` (465-540: ``SaveSubJobDecision`` of the sub-job's new
  HyperNode, the LCA of its old one and the best, under the job-level HyperNode tried);
  ``api/hyper_node_info.go`` ``GetLCAHyperNode`` (850-873: an empty side gives the other);
  ``plugins/network-topology-aware/network_topology_aware.go`` ``hyperNodeGradientFn`` /
  ``getSearchRoot`` (602-716: a job or sub-job with an allocated HyperNode is searched only
  under that HyperNode's highest ancestor within its tier, and its HyperNodes are not
  pre-filtered by resources) and ``HyperNodeOrderFn`` (359-437: a HyperNode's binpack score
  ``(used + the sub-job's requests) / allocatable``).

What a client sees of the recorder: a job's (or sub-job's) ``AllocatedHyperNode`` after a
committed allocation is the LCA of the one it had and the HyperNode chosen; it bounds the
job's pods placed later in the same session (a job with more pods than its minimum is taken
again after its gang commits) and is the job's ``hyperNode`` in the answer. Each case is a
cluster of 1-CPU pods on HyperNodes s0 {n0, n1} and s1 {n2, n3} (tier 1) under s4 (tier 2),
decided by ``allocate`` with the ``volcano`` profile's plugins plus
``network-topology-aware`` (the ``volcano`` profile has no gradient plugin). Go's hand-built
``JobInfo.AllocatedHyperNode`` is made by running pods: the session recovers it from their
nodes (``recoverAllocatedHyperNode``). Where Go's map order would choose between HyperNodes,
the clusters make one score higher (``HyperNodeOrderFn``'s binpack), so Go's choice is fixed.

Not transcribed:

* ``TestNewRecorder``, ``TestSaveJobDecision``, ``TestSaveSubJobDecision``: the recorder's
  maps being made and written are Go-internal; what they carry is shown where it is read
  (``UpdateDecisionToJob``), below.
* ``TestUpdateDecisionToJob_SubJobNotFound``: a sub-job recorded that the job does not have
  (Go logs an error and goes on). In a session the recorder only records the job's own
  sub-jobs, so no cluster reaches it.
* ``TestUpdateDecisionToJob_SubJob``'s LCA for the sub-job when the sub-job already had a
  HyperNode: the answer shows a job's HyperNode, not a sub-job's, and the LCA bounds no later
  pod differently (a sub-job's search root is its HyperNode's highest ancestor within its
  tier, the same for the old HyperNode, the new one and their LCA when all are within it).
  The job-level LCA is ``test_a_jobs_hypernode_widens_to_the_lca_of_the_old_and_the_chosen``;
  a sub-job's first decision bounding its later pods is transcribed.
* The job-level ``AllocatedHyperNode`` of a job without a topology of its own (its gradient
  is the cluster's top HyperNode alone, so ``UpdateDecisionToJob`` sets it to
  ``<cluster-top-hypernode>``): nothing reads it for such a job; the answer's ``hyperNode``
  for it is where its pods are. Not asserted.
* Clearing ``NominatedHyperNode`` in ``UpdateDecisionToJob`` (``recorder.go:83-90``):
  Gangplank does not model that in-memory field (see
  ``tests/test_volcano_upstream_capacity_allocate.py``); no snapshot carries one.
* The recorder's state living on in Volcano's cache for the next session (``cache.go``
  ``updateJobInfo`` copies ``AllocatedHyperNode`` back): a decision is one session; the
  next one recovers the HyperNode from the pods' nodes, as Volcano does after a restart.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import hypernode, node, pod, podgroup, post_decision, queue

NTA = "network-topology-aware"
CONF = {"actions": "allocate", "tiers": [
    {"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
    {"plugins": [{"name": "overcommit"}, {"name": "drf", "enablePreemptable": False}, {"name": "predicates"},
                 {"name": "proportion"}, {"name": "nodeorder"}, {"name": "binpack"}, {"name": NTA}]}]}  # fmt: skip
TREE = [hypernode("s0", 1, ["n0", "n1"]), hypernode("s1", 1, ["n2", "n3"]),
        hypernode("s4", 2, ["s0", "s1"], member_type="HyperNode")]  # fmt: skip
S0, S1 = {"n0", "n1"}, {"n2", "n3"}
HARD1 = {"mode": "hard", "highestTierAllowed": 1}
HARD2 = {"mode": "hard", "highestTierAllowed": 2}
#: a later pod that only s1's nodes can take
ONLY_S1 = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n2", "n3"]}]}]}}}}  # fmt: skip


def N(name: str, cpu: str) -> dict:
    return node(name, cpu=cpu, memory="8Gi", gpu=None, pods="110")


def T(name: str, group: str, *, node: str | None = None, labels: dict[str, str] | None = None,
      priority: int | None = None, extra_spec: dict | None = None, cpu: str = "1") -> dict:  # fmt: skip
    return pod(name, ns="ns", node=node, cpu=cpu, memory=None, group=group, labels=labels, priority=priority,
               extra_spec=extra_spec)  # fmt: skip


def PG(name: str, *, min_member: int, nt: dict | None = None, sgp: list[dict] | None = None,
       running: bool = False) -> dict:  # fmt: skip
    return podgroup(name, ns="ns", queue="q1", min_member=min_member, network_topology=nt, sub_group_policy=sgp,
                    phase="Running" if running else "Inqueue")  # fmt: skip


def policy(nt: dict | None) -> list[dict]:
    """One sub-group policy: the pods labelled ``sg`` by value, two make a sub-job ready."""
    out: dict[str, Any] = {"name": "sg", "subGroupSize": 2, "minSubGroups": 1, "matchLabelKeys": ["sg"]}
    if nt is not None:
        out["networkTopology"] = nt
    return [out]


def decide(objects: list[dict]) -> dict:
    return post_decision(objects, CONF)


def bound(out: dict) -> dict[str, str]:
    return {b["pod"].removeprefix("ns/"): b["node"] for b in out["bindings"]}


def hyper(out: dict, job: str = "ns/j") -> str | None:
    return next(j["hyperNode"] for j in out["jobs"] if j["job"] == job)


def busy_s0_cluster() -> list[dict]:
    """s0 {n0, n1} of 4 CPU each, half used by another job's running pods (allocatable 8,
    used 4); s1 {n2, n3} of 3 CPU each, free (6, 0). For a sub-job asking 4 CPU in all,
    ``HyperNodeOrderFn``'s binpack gives s0 (4 + 4) / 8 = 1 and s1 4 / 6: s0 is chosen."""
    return [N("n0", "4"), N("n1", "4"), N("n2", "3"), N("n3", "3"), *TREE, queue("q1"),
            PG("o", min_member=1, running=True), T("o-0", "o", node="n0", cpu="2"),
            T("o-1", "o", node="n1", cpu="2")]  # fmt: skip


def four_pods(labels: dict[str, str] | None = None) -> list[dict]:
    """j-0, j-1 (priority 10, taken first) anywhere; j-2, j-3 (priority 1) only on s1's nodes."""
    return ([T(f"j-{i}", "j", labels=labels, priority=10) for i in range(2)]
            + [T(f"j-{i}", "j", labels=labels, priority=1, extra_spec=ONLY_S1) for i in (2, 3)])  # fmt: skip


# -- recorder_test.go TestUpdateDecisionToJob (a job without a HyperNode yet) ---------------
def test_the_hypernode_a_jobs_gang_commits_to_bounds_its_later_pods():
    """recorder_test.go TestSaveJobDecision / TestUpdateDecisionToJob, a job without a
    HyperNode (``GetLCAHyperNode("", best)`` is ``best``): the job, hard at tier 1, minMember 2
    of four pods, commits j-0 and j-1 in s0 (the best-scored tier-1 HyperNode);
    ``UpdateDecisionToJob`` makes s0 its HyperNode, so when the job is taken again for j-2 and
    j-3, its search root is s0 and they, which only s1 can take, stay pending. Without the
    topology the same cluster places them in s1 (the control)."""
    out = decide(busy_s0_cluster() + [PG("j", min_member=2, nt=HARD1)] + four_pods())
    got = bound(out)
    assert sorted(got) == ["j-0", "j-1"]
    assert {got["j-0"], got["j-1"]} <= S0
    assert hyper(out) == "s0"
    control = bound(decide(busy_s0_cluster() + [PG("j", min_member=2)] + four_pods()))
    assert {control["j-2"], control["j-3"]} <= S1


def test_a_jobs_hypernode_widens_to_the_lca_of_the_old_and_the_chosen():
    """recorder_test.go TestUpdateDecisionToJob: the job's ``AllocatedHyperNode`` was node1
    (here s0, recovered from its running pods r-0 and r-1, which fill n0 and n1) and the
    decision is node2 (here s1, the only tier-1 HyperNode with room for j-0); the job's
    HyperNode becomes their LCA, ancestor1 (here s4, tier 2 = the job's highest tier)."""
    objs = [N(n, "1") for n in ("n0", "n1", "n2", "n3")] + TREE + [
        queue("q1"), PG("j", min_member=2, nt=HARD2, running=True),
        T("r-0", "j", node="n0"), T("r-1", "j", node="n1"), T("j-0", "j")]  # fmt: skip
    out = decide(objs)
    assert bound(out).get("j-0") in S1
    assert hyper(out) == "s4"


def test_a_job_whose_gang_does_not_commit_keeps_its_hypernode():
    """recorder_test.go TestUpdateDecisionToJob_NoHyperNode: with no decision recorded for the
    job, ``UpdateDecisionToJob`` leaves its HyperNode as it was. The job (hard at tier 2,
    minMember 3) runs r-0 on n0 (HyperNode s0); its two pending pods find one free node (n2,
    in s1): its trials in s1 and s4 place j-0 and are discarded (not ready), nothing commits,
    and the job's HyperNode stays s0, not s4."""
    objs = [N(n, "1") for n in ("n0", "n1", "n2", "n3")] + TREE + [
        queue("q1"), PG("j", min_member=3, nt=HARD2, running=True), T("r-0", "j", node="n0"),
        PG("o", min_member=1, running=True), T("o-0", "o", node="n1"), T("o-1", "o", node="n3"),
        T("j-0", "j"), T("j-1", "j")]  # fmt: skip
    out = decide(objs)
    assert bound(out) == {}
    assert hyper(out) == "s0"


# -- recorder_test.go TestUpdateDecisionToJob_SubJob / _NoSubJob ------------------------------
def test_the_hypernode_a_sub_jobs_gang_commits_to_bounds_its_later_pods():
    """recorder_test.go TestSaveSubJobDecision / TestUpdateDecisionToJob_SubJob: the sub-job
    (label ``sg: a``, four pods, ready at two, hard at tier 1) commits j-0 and j-1 in s0;
    ``allocateForJob`` puts the sub-job's HyperNode back as it was after each job-level trial
    (``RecoverSubJobStatus``), so only ``UpdateDecisionToJob`` gives it s0, from the decision
    recorded under the job-level HyperNode chosen. When the job is taken again, the sub-job's
    search root is s0 and j-2, j-3 (s1 only) stay pending. The sub-group without a topology
    places them in s1 (the control)."""
    a = {"sg": "a"}
    out = decide(busy_s0_cluster() + [PG("j", min_member=2, sgp=policy(HARD1))] + four_pods(a))
    got = {k: v for k, v in bound(out).items() if k.startswith("j-")}
    assert sorted(got) == ["j-0", "j-1"]
    assert set(got.values()) <= S0
    control = bound(decide(busy_s0_cluster() + [PG("j", min_member=2, sgp=policy(None))] + four_pods(a)))
    assert {control["j-2"], control["j-3"]} <= S1


@pytest.mark.parametrize("busy", ["s0", "s1"])
def test_each_job_level_trial_starts_from_the_sub_jobs_hypernode_before_the_trials(busy: str):
    """recorder_test.go TestUpdateDecisionToJob_NoSubJob (a sub-job decision recorded under
    another job-level HyperNode is not applied) with ``recorder.go``
    ``SnapshotSubJobStatus`` / ``RecoverSubJobStatus``: the job, hard at tier 2, tries each
    tier-1 HyperNode; its sub-job (hard at tier 1) takes the HyperNode of each trial, and is
    put back to none before the next, so every trial can succeed and the best-scored one
    wins: the busier HyperNode (binpack (4 + 2) / 8 against 2 / 4), whichever of s0 / s1 it
    is. Had a trial's sub-job HyperNode stayed, the next trial would find no search root
    (outside it) and the first trial in Go's map order would win."""
    nodes = S0 if busy == "s0" else S1
    objs = [N(n, "4" if n in nodes else "2") for n in ("n0", "n1", "n2", "n3")] + TREE + [queue("q1"),
            PG("o", min_member=1, running=True), PG("j", min_member=2, nt=HARD2, sgp=policy(HARD1))]  # fmt: skip
    objs += [T(f"o-{i}", "o", node=n, cpu="2") for i, n in enumerate(sorted(nodes))]
    objs += [T(f"j-{i}", "j", labels={"sg": "a"}) for i in range(2)]
    out = decide(objs)
    got = bound(out)
    assert {got["j-0"], got["j-1"]} <= nodes
    assert hyper(out) == busy
