"""Volcano's ``resourcequota`` plugin (``app.plugins.resourcequota``): namespace
ResourceQuota objects checked at enqueue.

Upstream: volcano-sh/volcano ``pkg/scheduler/plugins/resourcequota/resourcequota_test.go``:
``TestResourceQuotaPlugin`` (PodGroups of queue ``c1`` in ``default``, minMember 2, phase
Inqueue; ``normalResource`` 2000m / 2G, ``hugeResource`` 20000m / 20G; the quota ``test``
of ``default`` with ``status.hard`` = ``normalResource`` (``util.BuildResourceQuota``);
JobEnqueueable asked of each job) and ``TestJobEnqueuedOnOtherPluginsReject`` (a job another
plugin of the tier rejects does not spend the namespace's quota: Volcano's test uses a
plugin of its own that rejects ``pgA``; here the queue of ``pgA`` has no room, so the
proportion plugin of the same tier rejects it).
"""

from __future__ import annotations

import orjson
import pytest

from app.framework.session import Session
from app.ingest.request import read_request
from app.service import PLUGINS, PROFILE_PLUGINS, scheduler_config
from app.settings import Settings
from tests.kube import node, pod, podgroup, queue, request

SETTINGS = Settings()
NORMAL = {"cpu": "2000m", "memory": "2G"}
HUGE = {"cpu": "20000m", "memory": "20G"}


def quota(name: str, ns: str, hard: dict, used: dict | None = None) -> dict:
    status: dict = {"hard": hard}
    if used is not None:
        status["used"] = used
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": ns},
            "spec": {"hard": hard}, "status": status}  # fmt: skip


def pg(name: str, min_resources: dict | None, *, ns: str = "default", q: str = "c1", phase: str = "Inqueue") -> dict:
    o = podgroup(name, ns=ns, min_member=2, queue=q, phase=phase)
    if min_resources is not None:
        o["spec"]["minResources"] = min_resources
    return o


def enqueueable(objects: list[dict]) -> list[bool]:
    """JobEnqueueable of every job, the plugin alone in its tier."""
    req = read_request(request(objects, config={"actions": "enqueue", "tiers": [{"plugins": [{"name": "resourcequota"}]}]}), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    return [ssn.job_enqueueable(j) for j in ssn.cluster.jobs.values()]


UPSTREAM = {
    "ResourceQuota capacity can match the needs of this pg": ([pg("pg1", NORMAL), quota("test", "default", NORMAL)], True),
    "ResourceQuota capacity can't match the needs of this pg": ([pg("pg2", HUGE), quota("test", "default", NORMAL)], False),
    "No ResourceQuota resource object": ([pg("pg2", HUGE)], True),
    "MinResources field of pg is not set": ([pg("pg3", None), quota("test", "default", NORMAL)], True),
}


@pytest.mark.parametrize("name", list(UPSTREAM))
def test_resource_quota_plugin_upstream(name) -> None:
    objs, expected = UPSTREAM[name]
    assert enqueueable([queue("c1"), *objs]) == [expected]


def decide(client, objects: list[dict], plugins: list[dict]) -> dict:
    body = request(objects, config={"actions": "enqueue", "tiers": [{"plugins": plugins}]})
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def test_job_enqueued_on_other_plugins_reject(client) -> None:
    """A job the tier rejects (pgA: its queue's capability has no room) spends none of ns1's
    quota of 1 CPU, so pgB is admitted."""
    one = {"cpu": "1", "memory": "1G"}
    objs = [node("n1", cpu="4", memory="4G", gpu=None, pods="10"), queue("qa", capability={"cpu": "500m"}), queue("q1"),
            quota("rq1", "ns1", one), pg("pgA", one, ns="ns1", q="qa", phase="Pending"), pg("pgB", one, ns="ns1", q="q1", phase="Pending"),
            pod("podA", ns="ns1", cpu="1", memory="1G", group="pgA"), pod("podB", ns="ns1", cpu="1", memory="1G", group="pgB")]  # fmt: skip
    out = decide(client, objs, [{"name": "resourcequota"}, {"name": "capacity"}])
    assert out["enqueued"] == ["ns1/pgB"]


def test_admitted_jobs_spend_the_namespace_quota_and_used_counts(client) -> None:
    """JobEnqueued adds an admitted job's minResources to its namespace's pending: of two jobs
    of 2 CPU under a hard 3, only the first is admitted; with 2 used already, neither; other
    namespaces and names the minResources does not write (requests.cpu) are not counted."""
    two = {"cpu": "2", "memory": "1G"}
    jobs = [pg("a", two, phase="Pending"), pg("b", two, phase="Pending")]
    jobs[1]["metadata"]["creationTimestamp"] = "2026-11-23T09:30:00Z"
    base = [node("n1", cpu="16", memory="16G", gpu=None), queue("c1")]
    plugins = [{"name": "resourcequota"}]
    assert decide(client, [*base, *jobs, quota("q", "default", {"cpu": "3"})], plugins)["enqueued"] == ["default/a"]
    out = decide(client, [*base, *jobs, quota("q", "default", {"cpu": "3"}, used={"cpu": "2"})], plugins)
    assert out["enqueued"] == []
    assert any("resource quota insufficient for cpu" in str(j.get("message")) for j in out["jobs"])
    assert decide(client, [*base, *jobs, quota("q", "other", {"cpu": "1"})], plugins)["enqueued"] == ["default/a", "default/b"]
    assert decide(client, [*base, *jobs, quota("q", "default", {"requests.cpu": "1"})], plugins)["enqueued"] == ["default/a", "default/b"]


def test_every_quota_of_the_namespace_must_hold(client) -> None:
    """Two quotas in the namespace: the job must fit both (memory fits one, not the other)."""
    objs = [node("n1", cpu="16", memory="16G", gpu=None), queue("c1"), pg("a", {"cpu": "1", "memory": "2G"}, phase="Pending"),
            quota("cpu-only", "default", {"cpu": "4"}), quota("mem", "default", {"memory": "1G"})]  # fmt: skip
    assert decide(client, objs, [{"name": "resourcequota"}])["enqueued"] == []


def test_a_resource_quota_is_read_with_pointers_on_bad_quantities(client) -> None:
    body = request([quota("q", "default", {"cpu": "lots"})], config={"profile": "volcano"})
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/0/status/hard/cpu"


def test_quota_names_with_a_requests_prefix_take_their_resources_units(client) -> None:
    """``requests.storage: 10Pi`` (and ``limits.memory``) are bytes, as ``storage`` is: the quota
    reads (10Pi in milli-units would pass int64)."""
    objs = [node("n1", cpu="16", memory="16G", gpu=None), queue("c1"), pg("a", {"cpu": "1"}, phase="Pending"),
            quota("q", "default", {"requests.storage": "10Pi", "limits.memory": "64Pi", "cpu": "4"})]  # fmt: skip
    assert decide(client, objs, [{"name": "resourcequota"}])["enqueued"] == ["default/a"]


def test_a_duplicate_resource_quota_is_a_422(client) -> None:
    body = request([quota("q", "default", {"cpu": "1"}), quota("q", "default", {"cpu": "2"})], config={"profile": "volcano"})
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/1/metadata/name"
