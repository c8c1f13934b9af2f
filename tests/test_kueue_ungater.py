"""Kueue's topology ungater on the snapshot's pods (``app/kueue/ungater.py``; Go:
``pkg/controller/tas/topology_ungater.go``): what the answer says of it, one rule a test, on
the clusters of ``tests/test_kueue_topology_ungater_upstream.py`` (one node per rack, 8 cpu
each, 1-cpu pods). The upstream table itself is transcribed there."""

from __future__ import annotations

import random
from typing import Any

from tests.kube import request
from tests.test_admissions import one, post
from tests.test_kueue_topology_ungater_upstream import (
    B1R1, B1R2, B2R1, BLOCK, BR, JOB_INDEX, MAIN, NOW, OFFSET, RACK, kueue_objects, node, placements, pod, ps, psa, wl,
)
from tests import test_kueue_topology_ungater_upstream as upstream

sessions = upstream.sessions  # (the fixture: the engine sessions the request ran)

DOMS = (B1R1, B1R2, B2R1)


def answer(client: Any, workload: dict[str, Any], pods: list[dict[str, Any]]) -> dict[str, Any]:
    objects = [node(d, BR) for d in DOMS] + kueue_objects(BR) + pods
    return post(client, request(objects, workloads=[workload]))


def test_the_answer_lists_each_pod_the_topology_ungater_ungates(client) -> None:  # type: ignore[no-untyped-def]
    """``Reconcile`` + ``podsToUngateInfo``: the Workload's entry names each pod ungated, its podSet
    and the domain's level labels written into its nodeSelector; the pod already in its domain is
    not listed."""
    w = wl(ps(MAIN, 3), admission=[psa(MAIN, "3", 3, [(B1R1, 2), (B1R2, 1)])])
    got = one(answer(client, w, [pod("a", gated=False, dom=B1R1), pod("b"), pod("c")]), "ns/unit-test")
    assert got["reason"] == "AlreadyAdmitted"
    assert got["ungated"] == [
        {"pod": "ns/b", "podSet": MAIN, "nodeSelector": {BLOCK: "b1", RACK: "r1"}, "schedulingGates": []},
        {"pod": "ns/c", "podSet": MAIN, "nodeSelector": {BLOCK: "b1", RACK: "r2"}, "schedulingGates": []},
    ]


def test_a_pod_with_another_gate_is_ungated_and_keeps_that_gate(client, sessions) -> None:  # type: ignore[no-untyped-def]
    """``utilpod.Ungate`` removes only Kueue's gate: the pod is listed with the gate left, and stays
    unplaced while it has one."""
    w = wl(ps(MAIN, 1), admission=[psa(MAIN, "1", 1, [(B1R1, 1)])])
    entry, got = placements(client, sessions, w, [pod("p", other_gate=True)], BR, DOMS)
    assert entry["ungated"] == [{"pod": "ns/p", "podSet": MAIN, "nodeSelector": {BLOCK: "b1", RACK: "r1"},
                                 "schedulingGates": ["example.com/gate"]}]  # fmt: skip
    assert got == {"p": None}


def test_a_pod_still_gated_does_not_keep_the_workloads_other_pods_pending(client, sessions) -> None:  # type: ignore[no-untyped-def]
    """kube-scheduler places each ungated pod on its own: a pod another gate holds (here on a
    domain the assignment gives it) does not hold back the one Kueue ungates."""
    w = wl(ps(MAIN, 2), admission=[psa(MAIN, "2", 2, [(B1R1, 1), (B1R2, 1)])])
    held = pod("held", gated=False, other_gate=True, dom=B1R1)
    entry, got = placements(client, sessions, w, [held, pod("free")], BR, DOMS)
    assert [u["pod"] for u in entry["ungated"]] == ["ns/free"]
    assert got == {"held": None, "free": B1R2}


def test_an_offset_that_does_not_parse_ungates_none_of_the_workloads_pods(client, sessions) -> None:  # type: ignore[no-untyped-def]
    """``errParseOffsetAnnotation``: the reconcile fails before any patch, for every podSet; the
    warning names the pod and its annotation."""
    w = wl(ps(MAIN, 2, index=JOB_INDEX), admission=[psa(MAIN, "2", 2, [(B1R1, 1), (B1R2, 1)])])
    pods = [pod("p0", labels={JOB_INDEX: "0"}, offset="one"), pod("p1", labels={JOB_INDEX: "1"}, offset="one")]
    objects = [node(d, BR) for d in DOMS] + kueue_objects(BR) + pods
    out = post(client, request(objects, workloads=[w]))
    assert one(out, "ns/unit-test")["ungated"] == []
    assert any("ns/p0" in x and OFFSET in x and "'one'" in x for x in out["warnings"]), out["warnings"]
    assert not sessions or not sessions[-1].decision.bindings


def test_a_negative_offset_shifts_the_ranks_up(client, sessions) -> None:  # type: ignore[no-untyped-def]
    """``strconv.Atoi`` reads a sign: an offset of -1 makes index 0 rank 1 (and the bound one less);
    here index 0 goes to the second slot, b1/r2, and index 1's rank 2 is past the count: no ranks
    at all, so the greedy assignment gives p0 b1/r1 and p1 b1/r2 (name order)."""
    w = wl(ps(MAIN, 2, index=JOB_INDEX), admission=[psa(MAIN, "2", 2, [(B1R1, 1), (B1R2, 1)])])
    pods = [pod("p0", labels={JOB_INDEX: "0"}, offset="-1"), pod("p1", labels={JOB_INDEX: "1"}, offset="-1")]
    _, got = placements(client, sessions, w, pods, BR, DOMS)
    assert got == {"p0": B1R1, "p1": B1R2}
    one_pod = [pod("p0", labels={JOB_INDEX: "0"}, offset="-1")]
    _, got = placements(client, sessions, w, one_pod, BR, DOMS)
    assert got == {"p0": B1R2}


def test_pods_naming_the_workload_slice_are_its_pods(client, sessions) -> None:  # type: ignore[no-untyped-def]
    """``IndexPodWorkloadSliceName`` / ``workloadslicing.SliceName``: a Workload annotated
    ``kueue.x-k8s.io/workload-slice-name`` owns the pods whose same annotation names the slice
    (before their ``kueue.x-k8s.io/workload`` one)."""
    w = wl(ps(MAIN, 1), admission=[psa(MAIN, "1", 1, [(B2R1, 1)])])
    w["metadata"]["annotations"] = {"kueue.x-k8s.io/workload-slice-name": "chain"}
    mine, other = pod("mine"), pod("other")
    mine["metadata"]["annotations"]["kueue.x-k8s.io/workload-slice-name"] = "chain"
    other["metadata"]["annotations"]["kueue.x-k8s.io/workload-slice-name"] = "another-chain"
    entry, got = placements(client, sessions, w, [mine, other], BR, DOMS)
    assert [u["pod"] for u in entry["ungated"]] == ["ns/mine"]
    assert got == {"mine": B2R1, "other": None}


def test_a_workload_not_admitted_lists_no_ungated_pod(client) -> None:  # type: ignore[no-untyped-def]
    """``IsAdmittedByTAS``: quota reserved without the Admitted condition, nothing is ungated."""
    w = wl(ps(MAIN, 1), admission=[psa(MAIN, "1", 1, [(B1R1, 1)])], admitted=False)
    assert one(answer(client, w, [pod("p")]), "ns/unit-test")["ungated"] == []


def test_the_ungated_pods_do_not_depend_on_the_order_of_the_objects(client) -> None:  # type: ignore[no-untyped-def]
    """Greedy in pod-name order (the API server lists pods by name), whatever order the request
    holds them in: the same answer byte for byte."""
    w = wl(ps(MAIN, 4), admission=[psa(MAIN, "4", 4, [(B1R1, 2), (B1R2, 1), (B2R1, 1)])])
    pods = [pod(f"p{i}") for i in range(4)]
    objects = [node(d, BR) for d in DOMS] + kueue_objects(BR) + pods
    first = post(client, request(objects, workloads=[w]))
    for seed in range(3):
        shuffled = list(objects)
        random.Random(seed).shuffle(shuffled)
        assert post(client, request(shuffled, workloads=[w])) == first
    assert [(u["pod"], u["nodeSelector"][RACK]) for u in one(first, "ns/unit-test")["ungated"]] == [
        ("ns/p0", "r1"), ("ns/p1", "r1"), ("ns/p2", "r2"), ("ns/p3", "r1")]


# -- found by a review against Go (session 48) -----------------------------------------------------
def test_a_podset_assignment_without_a_count_ungates_nothing(client, sessions) -> None:  # type: ignore[no-untyped-def]
    """``topology_ungater.go`` dereferences ``*psa.Count`` for every group: without one the reconcile
    panics (recovered as an error) and no pod is ungated; the warning says so."""
    a = psa(MAIN, "1", 1, [(B1R1, 1)])
    del a["count"]
    entry, got = placements(client, sessions, wl(ps(MAIN, 1), admission=[a]), [pod("p")], BR, DOMS)
    assert entry["ungated"] == [] and got == {"p": None}


def test_a_workload_waiting_to_be_evicted_for_a_retry_check_is_still_ungated(client, sessions) -> None:  # type: ignore[no-untyped-def]
    """``IsAdmittedByTAS`` reads no check: a Workload whose Retry check waits for
    ``requeueState.requeueAt`` is still Admitted, and its pod is ungated."""
    w = wl(ps(MAIN, 1), admission=[psa(MAIN, "1", 1, [(B1R1, 1)])])
    w["status"]["admissionChecks"] = [{"name": "ac", "state": "Retry", "lastTransitionTime": NOW, "message": ""}]
    w["status"]["requeueState"] = {"requeueAt": "2026-11-23T13:00:00Z", "count": 1}
    entry, got = placements(client, sessions, w, [pod("p")], BR, DOMS)
    assert [u["pod"] for u in entry["ungated"]] == ["ns/p"] and got == {"p": B1R1}


def test_an_empty_slice_name_annotation_names_the_empty_slice(client, sessions) -> None:  # type: ignore[no-untyped-def]
    """``SliceName`` returns the annotation when present, empty or not: the pods naming the
    Workload by ``kueue.x-k8s.io/workload`` alone are not its slice's."""
    w = wl(ps(MAIN, 1), admission=[psa(MAIN, "1", 1, [(B1R1, 1)])])
    w["metadata"]["annotations"] = {"kueue.x-k8s.io/workload-slice-name": ""}
    entry, _ = placements(client, sessions, w, [pod("p")], BR, DOMS)
    assert entry["ungated"] == []


def test_a_pod_two_workloads_name_is_ungated_once(client) -> None:  # type: ignore[no-untyped-def]
    """Once ungated a pod has no gate: the next Workload's reconcile counts it where its
    nodeSelector puts it and does not ungate it again."""
    wa = wl(ps(MAIN, 1), admission=[psa(MAIN, "1", 1, [(B1R1, 1)])])
    wb = wl(ps(MAIN, 1), admission=[psa(MAIN, "1", 1, [(B1R2, 1)])])
    wa["metadata"]["name"], wb["metadata"]["name"] = "a", "b"
    for w in (wa, wb):
        w["metadata"]["annotations"] = {"kueue.x-k8s.io/workload-slice-name": "a"}
    p = pod("p")
    p["metadata"]["annotations"]["kueue.x-k8s.io/workload-slice-name"] = "a"
    out = post(client, request([node(d, BR) for d in DOMS] + kueue_objects(BR) + [p], workloads=[wa, wb]))
    assert [u["pod"] for k in ("ns/a", "ns/b") for u in one(out, k)["ungated"]] == ["ns/p"]


def test_podset_assignments_with_one_name_twice_are_refused(client) -> None:  # type: ignore[no-untyped-def]
    """The Workload CRD keys ``podSetAssignments`` by name (a list map): a 422 at the second name."""
    w = wl(ps(MAIN, 2), admission=[psa(MAIN, "1", 1, [(B1R1, 1)]), psa(MAIN, "1", 1, [(B1R2, 1)])])
    r = client.post("/v1/admissions", json=request([node(d, BR) for d in DOMS] + kueue_objects(BR), workloads=[w]))
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"].endswith("/status/admission/podSetAssignments/1/name"), r.text


def test_an_index_label_past_int64_wraps_as_go_reads_it(client, sessions) -> None:  # type: ignore[no-untyped-def]
    """``readUIntFromStringBelowBound`` returns ``int(uintValue)``: 2^64 − 9 is −9 and, with an
    offset of −10 (the bound below zero, which ``uint64`` makes huge), rank 1."""
    w = wl(ps(MAIN, 2, index=JOB_INDEX), admission=[psa(MAIN, "2", 2, [(B1R1, 1), (B1R2, 1)])])
    pods = [pod("a", labels={JOB_INDEX: str(2**64 - 9)}, offset="-10"),
            pod("b", labels={JOB_INDEX: str(2**64 - 10)}, offset="-10")]  # fmt: skip
    _, got = placements(client, sessions, w, pods, BR, DOMS)
    assert got == {"a": B1R2, "b": B1R1}
