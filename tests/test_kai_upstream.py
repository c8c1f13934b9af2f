"""KAI-Scheduler's own Go test tables, run with the default ``kai`` profile.

Every case of ``tests/kai_cases/*.yaml`` (transcribed from NVIDIA/KAI-Scheduler at commit
72de64fc, file and test function in each YAML document) is one test here, named after
the file and its index in the Go table; the Go case's name is in the failure message.
``tests/kai_upstream.py`` says how a case becomes a request and how the answer is read
back as KAI statuses. Cases that need what Gangplank does not model (MIG, a bind made to
fail) are skipped with that reason; a case marked ``knownFailure`` (a difference from KAI found
and not mended yet, said in the README) must still fail, and is reported as xfail.
"""

from __future__ import annotations

import pytest

from app.ingest.request import read_request
from app.service import decide_request
from app.settings import Settings
from tests.kai_upstream import Case, advance, build_objects, check, config, load_cases, statuses
from tests.kube import request

CASES = load_cases()
ROUNDS_AFTER = 5


def decide(case: Case, jobs: list[dict]) -> dict:
    body = request(build_objects(case.data, jobs), config=config(case))
    return decide_request(read_request(body, Settings())).wire()


def run(case: Case) -> list[str]:
    jobs = case.data.get("jobs") or []
    if not case.integration:
        return check(case, jobs, statuses(jobs, decide(case, jobs)))
    for _ in range(int(case.data.get("roundsUntilMatch", 2))):
        jobs = advance(jobs, statuses(jobs, decide(case, jobs)))
    before = {f"{j['name']}-{i}": (t.get("state", "Pending"), t.get("node", ""), tuple(t.get("gpuGroups") or ()))
              for j in jobs for i, t in enumerate(j.get("tasks") or [])}  # fmt: skip
    errors = [f"after the rounds: {e}" for e in check(case, jobs, before)]
    for r in range(ROUNDS_AFTER):
        got = statuses(jobs, decide(case, jobs))
        errors += [f"round {r + 1} after the match: {e}" for e in check(case, jobs, got)]
        jobs = advance(jobs, got)
    return errors


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_kai_go_table(case: Case) -> None:
    if case.data.get("skip"):
        pytest.skip(case.data["skip"])
    if case.data.get("knownFailure"):  # a difference from KAI found and not yet mended: must still fail
        errors = run(case)
        assert errors, f"{case.id} passes now: drop its knownFailure ({case.data['knownFailure']})"
        pytest.xfail(case.data["knownFailure"])
    errors = run(case)
    assert not errors, f"{case.source} {case.test} #{case.data['index']} {case.data['name']!r}:\n" + "\n".join(errors)


def test_every_transcribed_file_has_cases() -> None:
    files = {c.file for c in CASES}
    assert len(files) >= 45 and len(CASES) >= 398


def test_the_dra_cases_build_their_objects_as_the_go_builders_do() -> None:
    """The harness's DRA objects, for the DRA cases:
    a DeviceClass, ResourceSlice and ResourceClaim per entry, the pods' ``resourceClaims``,
    and between rounds a claim held by a bound pod is reserved for it and allocated on its
    node (pinned there by ``metadata.name``), then freed when its last pod is evicted."""
    case = next(c for c in CASES if c.id == "integration_allocate_dra[3]")
    objs = build_objects(case.data)
    kinds = [o["kind"] for o in objs]
    assert kinds.count("DeviceClass") == 1 and kinds.count("ResourceSlice") == 2 and kinds.count("ResourceClaim") == 1
    pods = [o for o in objs if o["kind"] == "Pod"]
    assert [p["spec"]["resourceClaims"] for p in pods] == [[{"name": "claim-0", "resourceClaimName": "claim-0"}]] * 2
    jobs = advance(case.data["jobs"], {"pending_job0-0": ("Binding", "node1", ()), "pending_job0-1": ("Pending", "", ())})
    claim = next(o for o in build_objects(case.data, jobs) if o["kind"] == "ResourceClaim")
    assert claim["status"]["reservedFor"] == [{"resource": "pods", "name": "pending_job0-0", "uid": "pending_job0-0"}]
    alloc = claim["status"]["allocation"]
    assert alloc["devices"]["results"] == [{"request": "request", "driver": "nvidia.com/gpu", "pool": "node1", "device": "0"}]
    assert alloc["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["node1"]
    jobs = advance(jobs, {"pending_job0-0": ("Releasing", "node1", ()), "pending_job0-1": ("Pending", "", ())})
    claim = next(o for o in build_objects(case.data, jobs) if o["kind"] == "ResourceClaim")
    assert "allocation" not in claim.get("status", {}) and "reservedFor" not in claim.get("status", {})
