"""A Workload's podSet counts and the TAS flavor cache's usage, transcribed where an answer shows them:
``pkg/workload/podsetscounts_test.go`` and ``pkg/cache/scheduler/tas_flavor_test.go``
(kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``), run through
``POST /v1/admissions``.

Read with them: ``pkg/workload/podsetscounts.go`` (``PodSetsCounts``: podSet name -> count;
``ExtractPodSetCounts``, ``ApplyPodSetCounts``, ``HasFewerReplicasThan``) and its callers (only
``pkg/workloadslicing`` ``EnsureWorkloadSlices`` / ``ScaledDown``, the elastic-job reconciler, the
Workload webhook's scale-down check, ``LimitReclaimablePodsToPodSetSizes``);
``pkg/cache/scheduler/tas_flavor.go`` (``addUsage``: per domain, count × the single pod's requests
plus ``pods`` = count; ``removeUsage``: subtracts what the Workload added) and its callers (the
cache adds an admitted Workload's ``TASUsage``, from its topologyAssignment, and deletes it when
the Workload finishes). Gangplank: :mod:`app.kueue.objects` (podSets by name),
:meth:`app.kueue.mapping.Admissions._assigned_usage` (an admitted Workload holds its
topologyAssignment's domains), :func:`app.kueue.tas.scaled` (count × the pod's requests with
``pods`` one per pod), ``FINISHED`` in :mod:`app.kueue.mapping` (a finished Workload holds nothing).

How the cases map:

* ``TestExtractPodSetCounts`` / ``TestExtractPodSetCountsFromWorkload`` "SinglePodSet" (``test``:
  10), "MultiplePodSets" (``test-a``: 10, ``test-b``: 11): a pending Workload with those podSets
  (1 cpu per pod) in ClusterQueue ``cq`` (plain flavor ``default``, 100 cpu, on nodes with room):
  each podSet assignment of the answer carries its own podSet's count and count × 1 cpu.
  "EmptyPodSets": a Workload without podSets is a 422 (the Workload CRD's ``podSets`` minItems 1,
  which Kueue's API server enforces).
* ``TestTASFlavorCacheAddAndRemoveUsage`` "add usage" (domain ``domain1``, 2 pods of 2 cpu: cpu 4,
  pods 2): an admitted Workload ``wl1`` whose topologyAssignment puts 2 pods of 2 cpu on node
  ``domain1`` (hostname ``domain1``; Topology ``tas-single-level``, hostname; ResourceFlavor
  ``tas-default``; ClusterQueue ``tas-main`` 50 cpu, as ``tests/test_kueue_tas_schedule_upstream_a.py``
  builds them). With ``domain1`` of 5 cpu, a pending Workload's one pod of 1 cpu is placed there
  and one of 2 cpu is not (4 cpu held); with ``domain1`` of 3 pods (50 cpu), a pending podSet of
  1 pod is placed and one of 2 pods is not (2 pods held).
* "remove usage": ``wl1`` finished (``Finished`` True: Kueue's cache deletes it, ``removeUsage``):
  ``domain1`` holds nothing; the pending 5 cpu (or 3 pods) are placed.

Not transcribed (:func:`test_not_transcribed`):

* ``TestApplyPodSetCounts`` (3 cases), ``TestPodSetsCounts_HasFewerReplicasThan`` (2 cases): only
  elastic jobs' workload slices use them (``EnsureWorkloadSlices`` writing a job's new counts into
  its existing Workload, ``ScaledDown``); Gangplank answers the Workloads of a snapshot and does not
  reconcile an existing slice with its job (``app/kueue/jobs.py``: "workload slices:
  EnsureWorkloadSlices, not compared here"); no answer shows them.
* ``TestTASFlavorCacheAddAndRemoveUsage`` "add usage self-healing (replace existing)" and "remove
  usage (key not found) handles gracefully": the cache's bookkeeping across events (a second
  ``addUsage`` for one Workload, a ``removeUsage`` for one never added); a snapshot holds each
  Workload once, with one assignment.
* ``TestTASFlavorCacheNodeLabelsConcurrentAccess``: a data race under ``go test -race``.
* ``TestStoreTreeReturnsNewest``: the cache's topology tree generations.

Differences: none found.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import request, roomy_node
from tests.test_admissions import one, post
from tests.test_kueue_tas_schedule_upstream_a import H, SHARED, SINGLE, TAS_FLAVOR, adm, cq, fq, ps, psa, tas_node, wl

V2 = "kueue.x-k8s.io/v1beta2"
NOW = "2026-11-23T11:00:00Z"


# -- TestExtractPodSetCounts / TestExtractPodSetCountsFromWorkload ------------------------------------
def plain_objects() -> list[dict[str, Any]]:
    """ResourceFlavor ``default``, ClusterQueue ``cq`` (100 cpu), LocalQueue ``default/lq``, four
    roomy nodes."""
    return [*(roomy_node(f"n{i}", ("cpu",)) for i in range(4)),
            {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "default"}, "spec": {}},
            {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": {
                "namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                    {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "100"}]}]}]}},
            {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "default"},
             "spec": {"clusterQueue": "cq"}},
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}]  # fmt: skip


def pending(*pod_sets: dict[str, Any], queue: str = "lq", name: str = "wl") -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "Workload",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": "2026-11-23T10:00:00Z"},
            "spec": {"queueName": queue, "podSets": list(pod_sets)}}  # fmt: skip


@pytest.mark.parametrize("counts", [
    pytest.param({"test": 10}, id="SinglePodSet"),
    pytest.param({"test-a": 10, "test-b": 11}, id="MultiplePodSets"),
])  # fmt: skip
def test_pod_set_counts_are_read_by_pod_set_name(client, counts):  # type: ignore[no-untyped-def]
    """podsetscounts_test.go TestExtractPodSetCounts / TestExtractPodSetCountsFromWorkload
    "SinglePodSet", "MultiplePodSets": each podSet's count is its own (name -> count): the
    admission gives each podSet assignment that count and count × 1 cpu."""
    w = pending(*(ps(name, n, cpu="1") for name, n in counts.items()))
    got = one(post(client, request(plain_objects(), workloads=[w])), "default/wl")
    assert got["reason"] == "Admitted", got
    assigned = {p["name"]: (p["count"], p["resourceUsage"]["cpu"]) for p in got["admission"]["podSetAssignments"]}
    assert assigned == {name: (n, str(n)) for name, n in counts.items()}


def test_workload_without_pod_sets_is_a_422(client):  # type: ignore[no-untyped-def]
    """podsetscounts_test.go TestExtractPodSetCounts / TestExtractPodSetCountsFromWorkload
    "EmptyPodSets" (no counts): the Workload CRD requires at least one podSet, so Kueue's API
    server refuses such a Workload: a 422."""
    r = client.post("/v1/admissions", json=request(plain_objects(), workloads=[pending()]))
    assert r.status_code == 422, r.text
    assert [e["pointer"] for e in r.json()["errors"]] == ["/workloads/0/spec/podSets"], r.text


# -- TestTASFlavorCacheAddAndRemoveUsage ---------------------------------------------------------------
def holder(finished: bool = False) -> dict[str, Any]:
    """``wl1``: admitted, 2 pods of 2 cpu assigned to domain ``domain1`` (its cache usage: cpu 4,
    pods 2); ``finished``: its Finished condition True."""
    w = wl("wl1", ps("main", 2, required=H, cpu="2"),
           reserved=adm(psa("main", ("cpu", "tas-default", "4"), count=2, ta=[("domain1", 2)])), admitted=True)
    if finished:
        w["status"]["conditions"].append({"type": "Finished", "status": "True", "lastTransitionTime": NOW,
                                          "reason": "Succeeded", "message": "done"})  # fmt: skip
    return w


def placed(client, node: dict[str, Any], count: int, cpu: str, finished: bool = False) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``wl2`` (``count`` pods of ``cpu``, required hostname) is admitted beside ``wl1``."""
    objs = [node, SINGLE, TAS_FLAVOR, cq([fq("tas-default", cpu="50")]), *SHARED]
    got = post(client, request(objs, workloads=[holder(finished), wl("wl2", ps("main", count, required=H, cpu=cpu))]))
    assert one(got, "default/wl1")["reason"] == ("Finished" if finished else "AlreadyAdmitted"), one(got, "default/wl1")
    return one(got, "default/wl2")["admitted"] is True


def test_topology_usage_is_count_times_the_pod_requests(client):  # type: ignore[no-untyped-def]
    """tas_flavor_test.go TestTASFlavorCacheAddAndRemoveUsage "add usage": 2 pods of 2 cpu on
    domain1 hold cpu 4 there: of domain1's 5 cpu one more pod of 1 cpu fits, one of 2 cpu does not."""
    node = tas_node("domain1", cpu="5", pods="10")
    assert placed(client, node, 1, "1") is True
    assert placed(client, node, 1, "2") is False


def test_topology_usage_counts_one_pod_per_pod(client):  # type: ignore[no-untyped-def]
    """tas_flavor_test.go TestTASFlavorCacheAddAndRemoveUsage "add usage": the 2 pods hold ``pods``
    2 on domain1: of its 3 pods one more pod fits, two do not."""
    node = tas_node("domain1", cpu="50", pods="3")
    assert placed(client, node, 1, "100m") is True
    assert placed(client, node, 2, "100m") is False


def test_finished_workload_holds_no_topology_usage(client):  # type: ignore[no-untyped-def]
    """tas_flavor_test.go TestTASFlavorCacheAddAndRemoveUsage "remove usage": once wl1 is removed
    from the cache (finished) domain1 holds cpu 0 and pods 0: all of its 5 cpu, and all of its
    3 pods, are placed."""
    assert placed(client, tas_node("domain1", cpu="5", pods="10"), 1, "5", finished=True) is True
    assert placed(client, tas_node("domain1", cpu="50", pods="3"), 3, "100m", finished=True) is True


NOT_TRANSCRIBED = [
    ("TestApplyPodSetCounts", "only elastic jobs' workload slices use it (EnsureWorkloadSlices writes a job's new "
                              "counts into its existing Workload): Gangplank does not reconcile slices with their job"),
    ("TestPodSetsCounts_HasFewerReplicasThan", "only workloadslicing.ScaledDown uses it (slices, the Workload "
                                               "webhook's and controller's scale-down checks): as above"),
    ("TestTASFlavorCacheAddAndRemoveUsage/add usage self-healing (replace existing)",
     "the cache's bookkeeping of a second addUsage for one Workload: a snapshot holds each Workload once"),
    ("TestTASFlavorCacheAddAndRemoveUsage/remove usage (key not found) handles gracefully",
     "the cache's bookkeeping of a removeUsage for a Workload never added: no answer shows it"),
    ("TestTASFlavorCacheNodeLabelsConcurrentAccess", "a data race, only under go test -race"),
    ("TestStoreTreeReturnsNewest", "the cache's topology tree generations"),
]  # fmt: skip


@pytest.mark.parametrize("case, reason", NOT_TRANSCRIBED, ids=[c for c, _ in NOT_TRANSCRIBED])
def test_not_transcribed(case: str, reason: str) -> None:
    pytest.skip(f"{case}: {reason}")
