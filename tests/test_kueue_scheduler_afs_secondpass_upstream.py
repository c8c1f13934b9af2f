"""Kueue's scheduler second pass in an Admission Fair Sharing ClusterQueue, transcribed:
``TestSecondPassDoesNotRepushEntryPenalty`` in ``pkg/scheduler/scheduler_afs_secondpass_test.go``
(kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``), run through
``POST /v1/admissions``.

Read with it: ``pkg/scheduler/scheduler.go`` ``assumeWorkload`` (1055-1069: the entry penalty is
pushed only when ``shouldApplyEntryPenalty``), ``shouldApplyEntryPenalty`` (1318-1335: AFS on,
the ClusterQueue ``UsageBasedAdmissionFairSharing``, and the Workload holding no quota
reservation yet: a second pass re-assumes an already-reserved Workload and pushes nothing),
``makeClassicalIterator`` (1112-1118: quota-reserved entries, the second passes, go first) and
``pkg/workload/workload.go`` ``NeedsSecondPass`` (a delayed topology request whose admission
checks are all Ready). Gangplank: :meth:`app.kueue.mapping.Admissions._second_passes` (the
second pass, which takes no quota), :func:`app.kueue.admit._second_pass_answer` (its answer) and
:mod:`app.kueue.quota` (the only place a penalty is pushed, ``Ledger.push``: for a Workload the
cycle gives quota).

How the Go test maps:

* the objects -> one request: Topology ``tas-single-level`` (hostname), ResourceFlavor
  ``tas-default`` (``tas-node: true``), node ``x1`` (1 cpu, 1Gi, 10 pods, Ready), AdmissionCheck
  ``prov-check`` (controller ``kueue.x-k8s.io/provisioning-request``, Active), ClusterQueue ``cq``
  (tas-default 50 cpu / 50Gi, admission check ``prov-check``, ``admissionScope.admissionMode:
  UsageBasedAdmissionFairSharing``), LocalQueue ``default/lq`` (weight 1), Kueue's Configuration
  with ``fairSharing: {}`` and ``admissionFairSharing`` 10s / 1s (the scheduler's
  ``WithFairSharing`` / ``WithAdmissionFairSharing``).
* Workload ``foo``: podSet ``one`` (1 pod, 1 cpu, required topology hostname), quota reserved
  in ``cq`` (cpu 1000m on tas-default, ``delayedTopologyRequest: Pending``), ``prov-check``
  Ready: mid-second-pass.
* "the second pass must have admitted the workload" -> :func:`test_second_pass_admits_the_delayed_topology`:
  the answer admits ``foo`` with its admission as it was and the topology assigned (x1, 1 pod),
  ``delayedTopologyRequest: Ready``.
* "no pending penalty on lq" (``AfsUsageLedger.HasPendingPenalty``, which no answer shows) ->
  :func:`test_second_pass_pushes_no_entry_penalty`: the same objects plus Workloads a penalty
  would reorder. ``lq`` and ``lq-b`` each have a pending Workload; over the cycles, ``wl-a1`` (lq,
  oldest) is admitted first (lq's usage 0 < lq-b's); its own penalty (1 cpu × alpha, alpha =
  1 − 0.5^(1/10) ≈ 0.067) leaves lq below lq-b's consumed 0.1 cpu, so ``wl-a2`` (lq) is next
  and ``wl-b1`` (lq-b, younger) waits for quota (the ClusterQueue holds two of them besides
  foo). A second penalty of foo's 1 cpu pushed by the second pass would bring lq to ≈ 0.134 >
  0.1 and put ``wl-b1`` first. The quota is 3 cpu and the node (``x1``) given 3 cpu so that
  placement never decides. Checked with a control: with lq-b at 0.05 (below wl-a1's penalty)
  ``wl-b1`` is the second one, so the order does read the penalty.

Not transcribed: nothing else (the event recorder, the ``routine.Wrapper`` and the queue
manager's bookkeeping are the test's machinery; no answer shows them).

Differences: none found.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.test_admissions import one, post
from tests.test_kueue_quota import reasons
from tests.test_kueue_scheduler_upstream import ONE_CYCLE
from tests.test_kueue_tas_schedule_upstream_a import H, PROV, SINGLE, TAS_FLAVOR, _norm, admission_check, encode, ps, tas_node
from tests.kube import request

V2 = "kueue.x-k8s.io/v1beta2"
CONFIG = "config.kueue.x-k8s.io/v1beta2"
NOW = "2026-11-23T11:00:00Z"
CREATED = "2026-11-23T10:00:00Z"


def config() -> dict[str, Any]:
    """``WithFairSharing(&config.FairSharing{})``, ``WithAdmissionFairSharing(afsConfig)``."""
    return {"apiVersion": CONFIG, "kind": "Configuration", "fairSharing": {},
            "admissionFairSharing": {"usageHalfLifeTime": "10s", "usageSamplingInterval": "1s"}}  # fmt: skip


def cluster_queue(cpu: str = "50") -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": {
        "namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
            {"name": "tas-default", "resources": [{"name": "cpu", "nominalQuota": cpu},
                                                  {"name": "memory", "nominalQuota": "50Gi"}]}]}],
        "admissionChecksStrategy": {"admissionChecks": [{"name": "prov-check"}]},
        "admissionScope": {"admissionMode": "UsageBasedAdmissionFairSharing"}}}  # fmt: skip


def local_queue(name: str, consumed: dict[str, str] | None = None) -> dict[str, Any]:
    o: dict[str, Any] = {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": name, "namespace": "default"},
                         "spec": {"clusterQueue": "cq", "fairSharing": {"weight": "1"}}}  # fmt: skip
    if consumed is not None:
        o["status"] = {"fairSharing": {"weightedShare": 0, "admissionFairSharingStatus": {
            "consumedResources": consumed, "lastUpdate": NOW}}}  # fmt: skip
    return o


RESERVED = {"clusterQueue": "cq", "podSetAssignments": [
    {"name": "one", "flavors": {"cpu": "tas-default"}, "resourceUsage": {"cpu": "1000m"}, "count": 1,
     "delayedTopologyRequest": "Pending"}]}  # fmt: skip


def foo() -> dict[str, Any]:
    """The Workload mid-second-pass: quota reserved, prov-check Ready, topology delayed."""
    return {"apiVersion": V2, "kind": "Workload",
            "metadata": {"name": "foo", "namespace": "default", "creationTimestamp": CREATED},
            "spec": {"queueName": "lq", "podSets": [ps("one", 1, required=H, cpu="1")]},
            "status": {"admission": copy.deepcopy(RESERVED),
                       "conditions": [{"type": "QuotaReserved", "status": "True", "lastTransitionTime": NOW,
                                       "reason": "AdmittedByTest", "message": "Admitted by ClusterQueue cq"}],
                       "admissionChecks": [{"name": "prov-check", "state": "Ready", "message": "",
                                            "lastTransitionTime": NOW}]}}  # fmt: skip


def pending(name: str, queue: str, second: int) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "Workload",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": f"2026-11-23T10:30:{second:02d}Z"},
            "spec": {"queueName": queue, "podSets": [ps("one", 1, cpu="1")]}}  # fmt: skip


def objects(node_cpu: str = "1", cq_cpu: str = "50", lqs: tuple[dict[str, Any], ...] = ()) -> list[dict[str, Any]]:
    return [SINGLE, TAS_FLAVOR, tas_node("x1", cpu=node_cpu, memory="1Gi", pods="10"),
            admission_check("prov-check", PROV), cluster_queue(cq_cpu), local_queue("lq"), *lqs,
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}, config()]  # fmt: skip


def test_second_pass_admits_the_delayed_topology(client):  # type: ignore[no-untyped-def]
    """scheduler_afs_secondpass_test.go TestSecondPassDoesNotRepushEntryPenalty (its guard against
    a vacuous test): one ``schedule`` call runs foo's second pass in the AFS ClusterQueue and admits
    it, its admission as reserved with the topology assigned (x1, 1 pod) and the delayed request
    Ready."""
    got = post(client, request(objects(), workloads=[foo()], options=ONE_CYCLE))
    p = one(got, "default/foo")
    assert p["admitted"] is True and p["reason"] == "Admitted", p
    want = copy.deepcopy(RESERVED)
    want["podSetAssignments"][0] |= {"delayedTopologyRequest": "Ready", "topologyAssignment": encode([("x1", 1)])}
    assert _norm(p["admission"]) == _norm(want)


def test_second_pass_pushes_no_entry_penalty(client):  # type: ignore[no-untyped-def]
    """scheduler_afs_secondpass_test.go TestSecondPassDoesNotRepushEntryPenalty (the ledger has no
    pending penalty for lq after the second pass; ``scheduler.go`` ``shouldApplyEntryPenalty``:
    not for a Workload already holding quota). Seen through the order the penalty gives: after
    foo's second pass and wl-a1's admission, lq's usage is wl-a1's penalty alone (≈ 0.067 cpu),
    below lq-b's 0.1, so wl-a2 (lq) is admitted before the younger wl-b1; a penalty for foo too
    (≈ 0.134) would put wl-b1 first. The control (lq-b at 0.05, below wl-a1's penalty: wl-b1 is
    second) shows the order reads the penalty."""
    wls = [foo(), pending("wl-a1", "lq", 0), pending("wl-a2", "lq", 1), pending("wl-b1", "lq-b", 2)]
    got = reasons(post(client, request(objects("3", "3", (local_queue("lq-b", {"cpu": "100m"}),)), workloads=wls)))
    assert got == {"default/foo": "Admitted", "default/wl-a1": "QuotaReserved", "default/wl-a2": "QuotaReserved",
                   "default/wl-b1": "InsufficientQuota"}, got  # fmt: skip
    control = reasons(post(client, request(objects("3", "3", (local_queue("lq-b", {"cpu": "50m"}),)), workloads=wls)))
    assert control == {"default/foo": "Admitted", "default/wl-a1": "QuotaReserved",
                       "default/wl-a2": "InsufficientQuota", "default/wl-b1": "QuotaReserved"}, control  # fmt: skip
