"""Kueue's admission gates (``kueue.x-k8s.io/admission-gated-by``; the ``AdmissionGatedBy``
feature, on by default) in /v1/admissions.

* ``workload.HasAdmissionGate``: a Workload whose annotation is set and not empty is not
  admissible (``IsAdmissible``): it stays out of Kueue's queues, takes no quota, and its
  ``QuotaReserved`` condition reads ``AdmissionGated`` / "Admission is gated by: <gates>"
  (``workload_controller.go``); one admitted already keeps its admission.
* The job integrations copy a job's annotation onto the Workload they construct
  (``PropagateAdmissionGatedByAnnotation``) and onto its matching Workload
  (``UpdateAdmissionGatedBy``: a gate removed from the job is removed from the Workload).

The cluster of tests/test_admissions.py (eight 8-GPU nodes) with a ClusterQueue of 16 GPUs.
"""

from __future__ import annotations

from app.kueue import jobs
from tests.test_admissions import body, post
from tests.test_kueue_jobs import job, owned_workload, wl_key
from tests.test_kueue_quota import cq, flavor, lq, reasons, wl

GATE = "kueue.x-k8s.io/admission-gated-by"
QUEUES = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]


def gated(w: dict, gates: str) -> dict:
    w["metadata"].setdefault("annotations", {})[GATE] = gates
    return w


def test_a_gated_workload_is_not_admitted_and_takes_no_quota(client):
    # 16 GPUs: the older gated one would take them all; it is held, the younger one is admitted
    old = gated(wl("old", 16, created="2026-11-23T10:00:00Z"), "example.com/gate")
    a = post(client, body([old, wl("new", 16)], QUEUES))
    assert reasons(a) == {"ml/old": "AdmissionGated", "ml/new": "Admitted"}
    [w] = [x for x in a["workloads"] if x["workload"] == "ml/old"]
    assert w["message"] == "Admission is gated by: example.com/gate" and not w["admitted"]


def test_an_empty_gate_annotation_is_no_gate(client):
    a = post(client, body([gated(wl("w", 8), "")], QUEUES))
    assert reasons(a) == {"ml/w": "Admitted"}


def test_an_inactive_gated_workload_reads_inactive(client):
    w = gated(wl("w", 8), "example.com/gate")
    w["spec"]["active"] = False
    assert reasons(post(client, body([w], QUEUES))) == {"ml/w": "Inactive"}


def test_an_admitted_workload_keeps_its_admission_whatever_its_gates(client):
    w = gated(wl("w", 8), "example.com/gate")
    w["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [
        {"name": "main", "flavors": {"nvidia.com/gpu": "f"}, "count": 1}]}}
    assert reasons(post(client, body([w], QUEUES))) == {"ml/w": "AlreadyAdmitted"}


def test_a_jobs_gates_are_copied_to_the_workload_kueue_constructs(client):
    j = job("train", 1, annotations={GATE: "example.com/a, example.com/b"})
    a = post(client, body([], QUEUES + [j]))
    assert reasons(a) == {wl_key(j): "AdmissionGated"}
    assert a["workloads"][0]["message"] == "Admission is gated by: example.com/a, example.com/b"
    assert not any(GATE in x and "not modelled" in x for x in a["warnings"])


def test_a_gate_removed_from_the_job_is_removed_from_its_workload(client):
    # UpdateAdmissionGatedBy: the job's (absent) annotation replaces the matching Workload's
    j = job("train", 1)
    existing = gated(owned_workload("job-train-old", "train", "uid-train", ns="ml", queue="lq", count=1,
                                    template=j["spec"]["template"]), "example.com/gate")  # fmt: skip
    a = post(client, body([existing], QUEUES + [j]))
    assert reasons(a) == {"ml/job-train-old": "Admitted"}
    # and a gate added to the job reaches it
    j2 = job("train", 1, annotations={GATE: "example.com/late"})
    a = post(client, body([owned_workload("job-train-old", "train", "uid-train", ns="ml", queue="lq", count=1,
                                          template=j2["spec"]["template"])], QUEUES + [j2]))  # fmt: skip
    assert reasons(a) == {"ml/job-train-old": "AdmissionGated"}
    assert jobs.ADMISSION_GATED_BY == GATE


def test_gate_names_are_trimmed_of_gos_spaces_only_and_measured_in_bytes() -> None:
    # csv.Parse trims with strings.TrimSpace (unicode.IsSpace): U+001F is no space to Go, so the gate
    # "\x1f" is not a domain-prefixed path; MaxGateNameLengthForAdmissionGatedBy counts bytes
    from app.kueue.jobs import read_job, validation_errors
    from tests.test_kueue_jobs import make_job

    def errs(gates: str) -> list[str]:
        return [e.detail for e in validation_errors(read_job(make_job(annotations={GATE: gates}), "/objects/0"))]

    assert any("domain-prefixed path" in e for e in errs("\x1f"))
    assert errs(" \u3000example.com/gate\u00a0") == []
    assert any("Too long" in e for e in errs("example.com/" + "é" * 26))  # 12 + 52 bytes, 38 characters
    assert not any("Too long" in e for e in errs("example.com/" + "e" * 26))
