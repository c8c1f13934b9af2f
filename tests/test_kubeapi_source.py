"""The Kubernetes API snapshot source, against a replay API server with injected faults.

No real cluster is involved: ``tests/kubeapi_replay.py`` serves recorded ``kubectl get
--raw`` lists of a small cluster (8 GPU nodes under the seed-05 HyperNode tree, a Volcano
gang of three pending pods, a busy node) and watch streams, and breaks them on demand.
Waits poll the source with a bounded timeout; nothing asserts on wall-clock time.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import os
import pathlib
import random
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import orjson
import pytest
import yaml

from app.extender.kubeapi import RESOURCES, Backoff, KubeAPISource, KubeSourceSettings, config_from_env, parse_retry_after
from app.extender.kubeconfig import (
    KubeAuth,
    KubeConfig,
    KubeConfigError,
    TokenFile,
    in_cluster_config,
    kubeconfig_config,
)
from app.extender.source import AssumedPlacements, DirectorySource, SnapshotUnavailable, close_source, get_source
from app.ingest.request import read_request
from app.settings import Settings
from tests.kubeapi_replay import ReplayServer

ROOT = pathlib.Path(__file__).resolve().parent.parent
PODS = "/api/v1/pods"
NODES = "/api/v1/nodes"
PODGROUPS = "/apis/scheduling.volcano.sh/v1beta1/podgroups"
SPINE = {f"node{i}": ("s4" if i < 4 else "s5") for i in range(8)}
ALL = [f"node{i}" for i in range(8)]
FAST = {"request_timeout": 1.5, "watch_timeout": 2, "page_size": 3, "backoff_initial": 0.01, "backoff_max": 0.05,
        "crd_recheck": 0.2, "snapshot_interval": 0.0, "seed": 7}  # fmt: skip


def wait_until(pred: Callable[[], Any], timeout: float = 20.0) -> Any:
    end = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"condition not met within {timeout}s")
        time.sleep(0.01)


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def server() -> Iterator[ReplayServer]:
    srv = ReplayServer().start()
    yield srv
    srv.stop()


@pytest.fixture()
def make_source(server: ReplayServer) -> Iterator[Callable[..., KubeAPISource]]:
    made: list[KubeAPISource] = []

    def make(*, start: bool = True, **kw: Any) -> KubeAPISource:
        cfg = kw.pop("config", None) or KubeConfig(server=server.url, origin="test")
        src = KubeAPISource(cfg, **{**FAST, **kw})
        made.append(src)
        return src.start() if start else src

    yield make
    for s in made:
        s.close()


def ready(src: KubeAPISource) -> bool:
    return src.health()[0]


def snap(src: KubeAPISource) -> dict[tuple[str, str, str], str]:
    """(kind, namespace, name) -> resourceVersion of what the source serves."""
    return {(o["kind"], o["metadata"].get("namespace") or "", o["metadata"]["name"]): o["metadata"]["resourceVersion"]
            for o in src.objects()}  # fmt: skip


def expected(server: ReplayServer) -> dict[tuple[str, str, str], str]:
    """What a correct source serves: every listed resource the server has, field selectors applied."""
    out = {}
    for r in RESOURCES:
        for v in r.versions:
            if r.path(v) in server.lists:
                for (ns, name), rv in server.state(r.path(v), r.field_selector).items():
                    out[(r.kind, ns, name)] = rv
                break
    return out


def in_sync(src: KubeAPISource, server: ReplayServer) -> bool:
    return ready(src) and snap(src) == expected(server)


def watching(src: KubeAPISource, name: str, n: int = 1) -> bool:
    """Synced, and the watch of ``name`` open (its ``n``-th one) and healthy."""
    st = src.status()[name]
    return ready(src) and st["watches"] >= n and not st["failing"]


# Lists ----------------------------------------------------------------------------------
def test_list_pages_with_limit_and_continue_and_stamps_kind_and_api_version(server, make_source):
    src = make_source()
    wait_until(lambda: ready(src))
    assert snap(src) == expected(server)
    pages = server.queries(PODS, watch=False)
    assert [q.get("continue") for q in pages] == [None, "48213:3", "48213:6"]  # 7 pods, pages of 3
    assert all(q["limit"] == "3" for q in pages)
    pods = [o for o in src.objects() if o["kind"] == "Pod"]
    assert len(pods) == 7 and {o["apiVersion"] for o in pods} == {"v1"}  # list items come without kind/apiVersion
    hns = [o for o in src.objects() if o["kind"] == "HyperNode"]
    assert {o["apiVersion"] for o in hns} == {"topology.volcano.sh/v1alpha1"} and len(hns) == 7


def test_managed_fields_and_last_applied_configuration_are_dropped(server, make_source):
    src = make_source()
    wait_until(lambda: ready(src))
    objs = src.objects()
    assert all("managedFields" not in o["metadata"] for o in objs)
    coredns = [o for o in objs if o["kind"] == "Pod" and o["metadata"]["name"].startswith("coredns")]
    assert len(coredns) == 2
    assert all("kubectl.kubernetes.io/last-applied-configuration" not in (o["metadata"].get("annotations") or {})
               for o in coredns)  # fmt: skip


def test_snapshot_order_is_by_resource_then_namespace_and_name(server, make_source):
    src = make_source()
    wait_until(lambda: ready(src))
    objs = src.objects()
    kinds = [o["kind"] for o in objs]
    assert kinds.index("Node") < kinds.index("Pod") < kinds.index("PriorityClass") < kinds.index("HyperNode")
    pods = [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in objs if o["kind"] == "Pod"]
    assert pods == sorted(pods)


def test_configmaps_are_listed_and_watched_by_the_volcano_configmap_name_only(server, make_source):
    src = make_source()
    wait_until(lambda: watching(src, "configmaps"))
    assert all(q["fieldSelector"] == "metadata.name=volcano-controller-configmap"
               for q in server.queries("/api/v1/configmaps", watch=False) + server.queries("/api/v1/configmaps", watch=True))
    assert not [o for o in src.objects() if o["kind"] == "ConfigMap"]  # only kube-root-ca.crt exists


def test_missing_crd_group_is_an_empty_resource_not_an_error(server, make_source):
    src = make_source()
    wait_until(lambda: ready(src))
    status = src.status()
    for name in ("queues.scheduling.run.ai", "podgroups.scheduling.run.ai", "topologies.kai.scheduler",
                 "podgroups.scheduling.x-k8s.io", "topologies.kueue.x-k8s.io", "workloads.scheduling.k8s.io"):  # fmt: skip
        assert status[name]["absent"] and status[name]["synced"] and not status[name]["failing"], name
    # every served version was tried before giving up: v1beta2, v1beta1, v1alpha1 for Kueue
    tried = [p for p, w, _ in server.requests if "kueue" in p and not w]
    assert set(tried) == {"/apis/kueue.x-k8s.io/v1beta2/topologies", "/apis/kueue.x-k8s.io/v1beta1/topologies",
                          "/apis/kueue.x-k8s.io/v1alpha1/topologies"}  # fmt: skip
    assert not src.retries


def test_a_crd_installed_later_is_picked_up_at_the_next_recheck(server, make_source):
    src = make_source()
    wait_until(lambda: ready(src))
    queue = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "research", "uid": "q-r"},
             "spec": {"resources": {"gpu": {"quota": 16, "limit": -1, "overQuotaWeight": 1}}}}  # fmt: skip
    server.add_list("/apis/scheduling.run.ai/v2/queues", "QueueList", [queue])
    wait_until(lambda: src.status()["queues.scheduling.run.ai"]["version"] == "v2")
    assert [o["metadata"]["name"] for o in src.objects() if o["apiVersion"] == "scheduling.run.ai/v2"] == ["research"]


def test_the_first_served_version_of_a_resource_is_used(server, make_source):
    topo = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Topology", "metadata": {"name": "dc"},
            "spec": {"levels": [{"nodeLabel": "cloud.provider.com/topology-block"},
                                {"nodeLabel": "kubernetes.io/hostname"}]}}  # fmt: skip
    server.add_list("/apis/kueue.x-k8s.io/v1beta1/topologies", "TopologyList", [topo])
    src = make_source()
    wait_until(lambda: ready(src))
    assert src.status()["topologies.kueue.x-k8s.io"]["version"] == "v1beta1"
    assert [o["kind"] for o in src.objects() if o["apiVersion"].startswith("kueue")] == ["Topology"]


# Watches --------------------------------------------------------------------------------
def test_watch_asks_for_bookmarks_from_the_list_resource_version(server, make_source):
    src = make_source()
    wait_until(lambda: watching(src, "pods"))
    q = server.queries(PODS, watch=True)[0]
    assert q["resourceVersion"] == "48213" and q["allowWatchBookmarks"] == "true" and q["timeoutSeconds"] == "2"


def test_watch_events_added_modified_deleted_update_the_snapshot_and_its_version(server, make_source):
    src = make_source()
    wait_until(lambda: watching(src, "pods"))
    before, v0 = src.objects(), src.version
    new = server.item(PODS, "ml", "train-worker-0")
    new["metadata"].update(name="train-worker-3", uid="uid-w3")
    server.apply(PODS, "ADDED", new)
    wait_until(lambda: ("Pod", "ml", "train-worker-3") in snap(src))
    assert src.objects() is not before and src.version != v0
    busy = server.item(PODS, "other", "busy")
    busy["metadata"]["labels"]["tier"] = "low"
    rv = server.apply(PODS, "MODIFIED", busy)
    wait_until(lambda: snap(src)[("Pod", "other", "busy")] == rv)
    server.apply(PODS, "DELETED", server.item(PODS, "ml", "data-prep-5k2m9"))
    wait_until(lambda: ("Pod", "ml", "data-prep-5k2m9") not in snap(src))
    assert snap(src) == expected(server)
    assert src.status()["pods"]["lists"] == 1  # all of it through the one watch


def test_unchanged_snapshot_is_the_same_list_object(server, make_source):
    src = make_source()
    wait_until(lambda: ready(src))
    assert src.objects() is src.objects()


def test_a_new_snapshot_is_made_at_most_once_per_snapshot_interval(server, make_source):
    clock = FakeClock()
    src = make_source(clock=clock, snapshot_interval=1.0)
    wait_until(lambda: watching(src, "pods"))
    first, v0 = src.objects(), src.version
    busy = server.item(PODS, "other", "busy")
    rv = server.apply(PODS, "MODIFIED", busy)
    wait_until(lambda: src.status()["pods"]["resourceVersion"] == rv)
    clock.t += 0.9
    assert src.objects() is first and src.version == v0  # changed, but the snapshot is only 0.9 s old
    clock.t += 0.1
    fresh = src.objects()
    assert fresh is not first and src.version != v0
    assert {o["metadata"]["name"]: o["metadata"]["resourceVersion"] for o in fresh}["busy"] == rv
    clock.t += 5.0
    assert src.objects() is fresh  # nothing changed since: the same snapshot however old


def test_bookmark_moves_the_resource_version_but_not_the_snapshot(server, make_source):
    src = make_source()
    wait_until(lambda: watching(src, "nodes"))
    before, v0 = src.objects(), src.version
    rv = server.bookmark(NODES)
    wait_until(lambda: src.status()["nodes"]["resourceVersion"] == rv)
    assert src.objects() is before and src.version == v0


def test_a_watch_that_ends_cleanly_is_reopened_from_the_last_resource_version(server, make_source):
    src = make_source()
    wait_until(lambda: watching(src, "pods"))
    busy = server.item(PODS, "other", "busy")
    rv = server.apply(PODS, "MODIFIED", busy)
    wait_until(lambda: src.status()["pods"]["resourceVersion"] == rv)
    server.interrupt(PODS, "end")
    wait_until(lambda: server.count(PODS, watch=True) >= 2)
    assert server.queries(PODS, watch=True)[1]["resourceVersion"] == rv
    assert src.status()["pods"]["lists"] == 1 and not src.retries  # no re-list, no back-off


def test_watch_dropped_mid_stream_relists_and_catches_up(server, make_source):
    src = make_source()
    wait_until(lambda: watching(src, "pods"))
    lost = server.item(PODS, "other", "busy")
    lost["metadata"]["labels"]["missed"] = "yes"
    server.apply(PODS, "MODIFIED", lost, silent=True)  # its event never reaches the client
    server.interrupt(PODS, "drop")
    wait_until(lambda: src.status()["pods"]["lists"] == 2 and in_sync(src, server))
    assert any(name == "pods" and "broke" in reason for name, reason, _ in src.retries)
    # and the new watch delivers again
    server.apply(PODS, "DELETED", server.item(PODS, "other", "busy"))
    wait_until(lambda: ("Pod", "other", "busy") not in snap(src))


def test_watch_error_event_410_forces_a_relist(server, make_source):
    src = make_source()
    wait_until(lambda: watching(src, "pods"))
    lost = server.item(PODS, "ml", "train-worker-1")
    lost["metadata"]["labels"]["missed"] = "yes"
    server.apply(PODS, "MODIFIED", lost, silent=True)
    server.compact(PODS)
    server.interrupt(PODS, "end")  # the next watch, from the old resource version, gets ERROR 410
    wait_until(lambda: src.status()["pods"]["lists"] == 2 and in_sync(src, server))
    assert not [r for r in src.retries if r[0] == "pods"]  # a re-list at once, no back-off


def test_http_410_gone_on_a_watch_forces_a_relist(server, make_source):
    src = make_source()
    wait_until(lambda: watching(src, "nodes"))
    server.fail(NODES, "status", status=410, watch=True)
    server.interrupt(NODES, "end")  # the next watch is answered 410 (it never opens), then a list, then a watch
    wait_until(lambda: src.status()["nodes"]["lists"] == 2 and server.count(NODES, watch=True) == 3
               and watching(src, "nodes", 2))  # fmt: skip
    assert in_sync(src, server)


def test_an_expired_continue_token_restarts_the_list(server, make_source):
    server.fail(PODS, "status", status=410)  # first page: "continue parameter too old" (as if mid-list)
    src = make_source()
    wait_until(lambda: in_sync(src, server))
    assert src.status()["pods"]["lists"] == 1


def test_invalid_json_line_in_a_watch_forces_a_relist(server, make_source):
    src = make_source()
    wait_until(lambda: watching(src, "pods"))
    server.interrupt(PODS, "garbage")
    wait_until(lambda: src.status()["pods"]["lists"] == 2 and in_sync(src, server))
    assert any(name == "pods" and "invalid JSON in the watch" in reason for name, reason, _ in src.retries)


def test_a_watch_starting_with_a_truncated_line_relists(server, make_source):
    src = make_source()
    wait_until(lambda: watching(src, "nodes"))
    server.fail(NODES, "garbage", watch=True)  # the next watch starts with a truncated line
    server.interrupt(NODES, "end")
    wait_until(lambda: src.status()["nodes"]["lists"] == 2 and watching(src, "nodes", 3))
    assert in_sync(src, server)


def test_assumption_ends_with_the_first_snapshot_that_shows_the_pod_bound(server, make_source):
    clock = FakeClock()
    src = make_source(clock=clock, snapshot_interval=1.0)
    wait_until(lambda: watching(src, "pods"))
    first = src.objects()
    pod = server.item(PODS, "ml", "train-worker-0")
    uid = pod["metadata"]["uid"]
    src.assume(uid, "node5")
    pod["spec"]["nodeName"] = "node5"
    rv = server.apply(PODS, "MODIFIED", pod)
    wait_until(lambda: src.status()["pods"]["resourceVersion"] == rv)
    # the snapshot served is still the one without the binding: the assumption must stay
    assert src.objects() is first and src.live_assumptions() == {uid: "node5"}
    clock.t += 1.0
    bound = {o["metadata"]["uid"]: o["spec"].get("nodeName") for o in src.objects() if o["kind"] == "Pod"}
    assert bound[uid] == "node5" and src.live_assumptions() == {}


# Faults ---------------------------------------------------------------------------------
def test_server_errors_are_retried_with_bounded_exponential_backoff(server, make_source):
    server.fail(PODS, "status", status=500, times=3)
    src = make_source()
    wait_until(lambda: in_sync(src, server))
    delays = [d for name, reason, d in src.retries if name == "pods"]
    assert len(delays) == 3 and all("HTTP 500" in r for n, r, _ in src.retries if n == "pods")
    for n, d in enumerate(delays):  # attempt n waits within [b/2, b], b = 0.01 * 2**n
        b = min(0.05, 0.01 * 2**n)
        assert b / 2 <= d <= b, (n, d)


def test_429_waits_at_least_retry_after(server, make_source):
    asked: list[float] = []

    async def sleep(d: float) -> None:  # record, but do not really wait a second
        asked.append(d)
        await asyncio.sleep(min(d, 0.01))

    server.fail(NODES, "status", status=429, headers={"Retry-After": "1"})
    src = make_source(sleep=sleep, backoff_max=2.0)
    wait_until(lambda: in_sync(src, server))
    retry = [(r, d) for name, r, d in src.retries if name == "nodes"]
    throttled = [d for r, d in retry if "HTTP 429" in r]
    # one 429 (the fault is served once), waited at least Retry-After; on a loaded machine
    # a request may also time out and be retried, which is not what this test is about
    assert len(throttled) == 1 and throttled[0] >= 1.0, retry


def test_a_hanging_list_times_out_and_is_retried(server, make_source):
    server.fail(NODES, "hang", seconds=1.0)
    src = make_source(request_timeout=0.3)
    wait_until(lambda: in_sync(src, server))
    assert any(name == "nodes" and "timed out after 0.3s" in reason for name, reason, _ in src.retries)


def test_a_truncated_list_body_is_retried(server, make_source):
    server.fail(PODS, "garbage")
    src = make_source()
    wait_until(lambda: in_sync(src, server))
    assert any(name == "pods" and "invalid JSON in the list" in reason for name, reason, _ in src.retries)


def test_core_resource_404_is_an_error_not_an_empty_list(server, make_source):
    server.fail(NODES, "status", status=404, times=2)
    src = make_source()
    wait_until(lambda: in_sync(src, server))
    assert [r for n, r, _ in src.retries if n == "nodes"][:1] == ["nodes: HTTP 404 injected failure"]


def test_connection_refused_serves_the_last_snapshot_until_max_staleness(server, make_source):
    clock = FakeClock()
    src = make_source(clock=clock, max_staleness=30.0)
    wait_until(lambda: ready(src))
    good = src.objects()
    clock.t += 300.0  # five quiet minutes: open watches keep the snapshot current
    assert src.health() == (True, "")
    server.stop()  # every open watch is cut and the port refuses connections
    wait_until(lambda: src.status()["pods"]["failing"] and "ConnectError" in src.status()["pods"]["error"])
    clock.t += 20.0
    n = len([r for r in src.retries if r[0] == "pods"])
    wait_until(lambda: len([r for r in src.retries if r[0] == "pods"]) >= n + 2)  # failing on, the clock moving
    clock.t += 10.0  # staleness counts from the first failure, not the latest
    assert src.health() == (True, "") and src.objects() is good  # exactly max staleness old: still served
    clock.t += 0.5
    ok, reason = src.health()
    assert not ok and "stale (limit 30s" in reason
    assert "pods unconfirmed for 30.5s: the list of pods failed: ConnectError" in reason
    with pytest.raises(SnapshotUnavailable):
        src.objects()
    server.start()  # same port
    wait_until(lambda: in_sync(src, server))


def test_list_over_max_objects_is_refused_and_reported(server, make_source):
    src = make_source(max_objects=5)
    wait_until(lambda: "GANGPLANK_MAX_OBJECTS" in src.health()[1])
    ok, reason = src.health()
    assert not ok and "waiting for the first list of" in reason and "nodes" in reason
    with pytest.raises(SnapshotUnavailable):
        src.objects()


def test_list_over_max_body_bytes_is_refused_and_reported(server, make_source):
    src = make_source(max_body_bytes=20_000)  # the node list alone is ~25 kB
    wait_until(lambda: "GANGPLANK_MAX_BODY_BYTES" in src.health()[1])
    assert not src.health()[0] and src.status()["nodes"]["failing"] and not src.status()["nodes"]["synced"]


def test_total_objects_over_max_objects_makes_the_source_not_ready(server, make_source):
    src = make_source(max_objects=20)  # every list fits (8 nodes at most), all of them together (32) do not
    wait_until(lambda: all(s["synced"] for s in src.status().values()))
    ok, reason = src.health()
    assert not ok and reason == "the cluster has 32 objects, more than 20 (GANGPLANK_MAX_OBJECTS)"


def test_not_ready_until_the_first_complete_sync(server, make_source):
    server.fail(PODS, "hang", seconds=1.0)
    src = make_source(request_timeout=0.5)
    ok, reason = src.health()
    assert not ok and reason.startswith("waiting for the first list of")
    with pytest.raises(SnapshotUnavailable, match="waiting for the first list"):
        src.objects()
    wait_until(lambda: in_sync(src, server))


# Back-off and Retry-After ---------------------------------------------------------------
class Fixed(random.Random):
    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def test_backoff_doubles_up_to_the_maximum_with_jitter_between_half_and_full():
    low = Backoff(1.0, 30.0, Fixed(0.0))
    assert [low.next() for _ in range(7)] == [0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 15.0]
    high = Backoff(1.0, 30.0, Fixed(0.999999))
    assert [round(high.next(), 3) for _ in range(7)] == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    high.reset()
    assert round(high.next(), 3) == 1.0


def test_backoff_jitter_is_reproducible_from_a_seed():
    a = Backoff(0.5, 30.0, random.Random("7:pods"))
    b = Backoff(0.5, 30.0, random.Random("7:pods"))
    assert [a.next() for _ in range(10)] == [b.next() for _ in range(10)]


def test_backoff_honours_retry_after_up_to_the_maximum():
    bo = Backoff(0.5, 10.0, Fixed(0.0))
    assert bo.next(retry_after=3.0) == 3.0
    assert bo.next(retry_after=60.0) == 10.0
    assert bo.next(retry_after=0.0) == 1.0  # the back-off itself when it is longer


def test_retry_after_reads_seconds_and_http_dates():
    now = dt.datetime(2026, 11, 23, 12, 0, 0, tzinfo=dt.timezone.utc)
    assert parse_retry_after("5", now) == 5.0
    assert parse_retry_after("Mon, 23 Nov 2026 12:00:07 GMT", now) == 7.0
    assert parse_retry_after("Mon, 23 Nov 2026 11:00:00 GMT", now) == 0.0
    assert parse_retry_after("soon", now) is None and parse_retry_after(None, now) is None


# Assumptions and versions (shared by both sources) --------------------------------------
def test_assumptions_expire_after_their_ttl_and_move_the_version():
    clock = FakeClock()
    changes: list[int] = []
    a = AssumedPlacements(300.0, lambda: changes.append(1), clock)
    a.add("u1", "node4")
    clock.t += 300.0
    assert a.live() == {"u1": "node4"} and len(changes) == 1
    clock.t += 0.1
    assert a.live() == {} and len(changes) == 2


def test_versions_are_never_reused_across_sources(tmp_path):
    (tmp_path / "a.json").write_text("[]")
    one, two = DirectorySource(str(tmp_path)), DirectorySource(str(tmp_path))
    one.objects()
    two.objects()
    assert one.version != two.version
    v = one.version
    one.assume("u", "n")
    assert one.version not in (v, two.version)


def test_directory_source_is_unavailable_without_its_directory(tmp_path):
    src = DirectorySource(str(tmp_path / "missing"))
    ok, reason = src.health()
    assert not ok and "does not exist" in reason


def test_directory_source_reports_an_unreadable_dump(tmp_path):
    (tmp_path / "cluster.json").write_text('{"kind": "List", "items": [')
    ok, reason = DirectorySource(str(tmp_path)).health()
    assert not ok and "cannot read snapshot file cluster.json" in reason


# Configuration ---------------------------------------------------------------------------
def b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def write_kubeconfig(path: pathlib.Path, clusters: list, users: list, contexts: list, current: str = "") -> str:
    doc = {"apiVersion": "v1", "kind": "Config", "clusters": clusters, "users": users, "contexts": contexts}
    if current:
        doc["current-context"] = current
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_kubeconfig_current_context_token_and_ca_data(tmp_path):
    ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    path = write_kubeconfig(
        tmp_path / "config",
        clusters=[{"name": "prod", "cluster": {"server": "https://10.0.0.1:6443/", "certificate-authority-data": b64(ca),
                                               "tls-server-name": "kubernetes.default.svc"}},
                  {"name": "dev", "cluster": {"server": "https://dev:6443", "insecure-skip-tls-verify": True}}],
        users=[{"name": "reader", "user": {"token": "abc.def"}}, {"name": "other", "user": {"token": "zzz"}}],
        contexts=[{"name": "prod-reader", "context": {"cluster": "prod", "user": "reader"}},
                  {"name": "dev-other", "context": {"cluster": "dev", "user": "other"}}],
        current="prod-reader")  # fmt: skip
    cfg = kubeconfig_config([path])
    assert (cfg.server, cfg.ca_data, cfg.token) == ("https://10.0.0.1:6443", ca, "abc.def")
    assert cfg.tls_server_name == "kubernetes.default.svc"
    assert not cfg.insecure_skip_tls_verify
    dev = kubeconfig_config([path], context="dev-other")
    assert (dev.server, dev.token, dev.insecure_skip_tls_verify) == ("https://dev:6443", "zzz", True)


def test_kubeconfig_client_certificate_data_and_key_data(tmp_path):
    path = write_kubeconfig(
        tmp_path / "config",
        clusters=[{"name": "c", "cluster": {"server": "https://k:6443"}}],
        users=[{"name": "u", "user": {"client-certificate-data": b64("CERT"), "client-key-data": b64("KEY")}}],
        contexts=[{"name": "x", "context": {"cluster": "c", "user": "u"}}], current="x")  # fmt: skip
    cfg = kubeconfig_config([path])
    assert (cfg.cert_data, cfg.key_data, cfg.token) == (b"CERT", b"KEY", None)


def test_kubeconfig_relative_files_resolve_against_its_directory(tmp_path):
    (tmp_path / "pki").mkdir()
    path = write_kubeconfig(
        tmp_path / "config",
        clusters=[{"name": "c", "cluster": {"server": "https://k:6443", "certificate-authority": "pki/ca.crt"}}],
        users=[{"name": "u", "user": {"client-certificate": "pki/u.crt", "client-key": "/abs/u.key", "tokenFile": "tok"}}],
        contexts=[{"name": "x", "context": {"cluster": "c", "user": "u"}}], current="x")  # fmt: skip
    cfg = kubeconfig_config([path])
    assert cfg.ca_file == str(tmp_path / "pki/ca.crt") and cfg.cert_file == str(tmp_path / "pki/u.crt")
    assert cfg.key_file == "/abs/u.key" and cfg.token_file == str(tmp_path / "tok")


def test_kubeconfig_path_list_merges_first_definition_wins(tmp_path):
    first = write_kubeconfig(tmp_path / "a", clusters=[{"name": "c", "cluster": {"server": "https://first:6443"}}],
                             users=[], contexts=[], current="x")  # fmt: skip
    second = write_kubeconfig(tmp_path / "b", clusters=[{"name": "c", "cluster": {"server": "https://second:6443"}}],
                              users=[{"name": "u", "user": {"token": "t"}}],
                              contexts=[{"name": "x", "context": {"cluster": "c", "user": "u"}}], current="y")  # fmt: skip
    cfg = kubeconfig_config([first, str(tmp_path / "missing"), second])
    assert (cfg.server, cfg.token) == ("https://first:6443", "t")


@pytest.mark.parametrize("user,message", [
    ({"exec": {"command": "aws"}}, "is not one of client.authentication.k8s.io"),
    ({"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "/nonexistent/plugin"}}, "could not run"),
    ({"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "x", "interactiveMode": "Always"}},
     "needs a terminal"),
    ({"auth-provider": {"name": "oidc"}}, "auth-provider plugins are not run"),
    ({"client-certificate-data": b64("C")}, "needs its key"),
    ({"client-key-data": "%%%"}, "not valid base64"),
])  # fmt: skip
def test_kubeconfig_unusable_users_are_refused_with_the_reason(tmp_path, user, message):
    path = write_kubeconfig(tmp_path / "config", clusters=[{"name": "c", "cluster": {"server": "https://k:6443"}}],
                            users=[{"name": "u", "user": user}],
                            contexts=[{"name": "x", "context": {"cluster": "c", "user": "u"}}], current="x")  # fmt: skip
    with pytest.raises(KubeConfigError, match=message):
        kubeconfig_config([path])


def _plugin(tmp_path: pathlib.Path, *, expires: str | None = None, fail: bool = False) -> str:
    """A credential plugin as EKS / GKE / AKS kubeconfigs run one: it prints an ExecCredential
    whose token counts its runs (token-1, token-2, ...)."""
    script = tmp_path / "plugin.py"
    status = {"token": "token-{n}"} | ({"expirationTimestamp": expires} if expires else {})
    script.write_text(
        "import json, os, pathlib, sys\n"
        f"count = pathlib.Path({str(tmp_path / 'runs')!r})\n"
        "n = int(count.read_text()) + 1 if count.exists() else 1\n"
        "count.write_text(str(n))\n"
        "info = json.loads(os.environ['KUBERNETES_EXEC_INFO'])\n"
        "assert info['spec']['interactive'] is False and os.environ['CLUSTER'] == 'prod'\n"
        + ("sys.exit('denied')\n" if fail else "")
        + f"status = {status!r}\n"
        "status['token'] = status['token'].format(n=n)\n"
        "print(json.dumps({'apiVersion': info['apiVersion'], 'kind': 'ExecCredential', 'status': status}))\n"
    )  # fmt: skip
    return write_kubeconfig(tmp_path / "config", clusters=[{"name": "c", "cluster": {"server": "http://k"}}],
                            users=[{"name": "u", "user": {"exec": {
                                "apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                                "args": [str(script)], "env": [{"name": "CLUSTER", "value": "prod"}]}}}],
                            contexts=[{"name": "x", "context": {"cluster": "c", "user": "u"}}], current="x")  # fmt: skip


def test_an_exec_credential_plugin_gives_the_token_and_runs_again_on_401(tmp_path):
    cfg = kubeconfig_config([_plugin(tmp_path)])
    auth = KubeAuth(cfg)
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Authorization"])
        return httpx.Response(401 if request.headers["Authorization"] == "Bearer token-1" else 200)

    with httpx.Client(transport=httpx.MockTransport(handler), auth=auth) as client:
        assert client.get("http://k/api").status_code == 200  # token-1 refused: the plugin runs again
        assert client.get("http://k/api").status_code == 200  # token-2 kept (no expiry given)
    assert seen == ["Bearer token-1", "Bearer token-2", "Bearer token-2"]


def test_an_exec_token_is_fetched_again_once_it_expires(tmp_path):
    cfg = kubeconfig_config([_plugin(tmp_path, expires="2000-01-01T00:00:00Z")])  # already expired
    assert cfg.exec_plugin.token() == "token-2" and cfg.exec_plugin.token() == "token-3"


def test_a_failing_exec_plugin_is_a_clear_error(tmp_path):
    with pytest.raises(KubeConfigError, match="exited 1: denied"):
        kubeconfig_config([_plugin(tmp_path, fail=True)])


def test_kubeconfig_without_current_context_or_server_is_refused(tmp_path):
    path = write_kubeconfig(tmp_path / "config", clusters=[{"name": "c", "cluster": {"server": "k:6443"}}],
                            users=[], contexts=[{"name": "x", "context": {"cluster": "c"}}])  # fmt: skip
    with pytest.raises(KubeConfigError, match="no current-context"):
        kubeconfig_config([path])
    with pytest.raises(KubeConfigError, match="server must be an http"):
        kubeconfig_config([path], context="x")


def test_in_cluster_config_reads_the_service_account_mount(tmp_path):
    (tmp_path / "token").write_text("sa-token\n")
    (tmp_path / "ca.crt").write_text("CA")
    cfg = in_cluster_config(str(tmp_path), {"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"})
    assert cfg.server == "https://10.96.0.1:443"
    assert (cfg.token_file, cfg.ca_file) == (str(tmp_path / "token"), str(tmp_path / "ca.crt"))
    v6 = in_cluster_config(str(tmp_path), {"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"})
    assert v6.server == "https://[fd00::1]:443"
    with pytest.raises(KubeConfigError, match="KUBERNETES_SERVICE_HOST"):
        in_cluster_config(str(tmp_path), {})
    with pytest.raises(KubeConfigError, match="no service-account token"):
        in_cluster_config(str(tmp_path / "nope"), {"KUBERNETES_SERVICE_HOST": "h", "KUBERNETES_SERVICE_PORT": "1"})


def test_configuration_prefers_gangplank_kubeconfig_then_kubeconfig_then_in_cluster(tmp_path):
    a = write_kubeconfig(tmp_path / "a", clusters=[{"name": "c", "cluster": {"server": "https://a:1"}}], users=[],
                         contexts=[{"name": "x", "context": {"cluster": "c"}}], current="x")  # fmt: skip
    b = write_kubeconfig(tmp_path / "b", clusters=[{"name": "c", "cluster": {"server": "https://b:1"}}], users=[],
                         contexts=[{"name": "x", "context": {"cluster": "c"}}], current="x")  # fmt: skip
    (tmp_path / "token").write_text("t")
    env = {"KUBECONFIG": b, "KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    sa = str(tmp_path)
    assert config_from_env(KubeSourceSettings(kubeconfig=a, kube_service_account_dir=sa), env).server == "https://a:1"
    assert config_from_env(KubeSourceSettings(kube_service_account_dir=sa), env).server == "https://b:1"
    del env["KUBECONFIG"]
    assert config_from_env(KubeSourceSettings(kube_service_account_dir=sa), env).server == "https://10.96.0.1:443"


def test_token_file_is_reread_when_it_changes(tmp_path):
    tok = tmp_path / "token"
    tok.write_text("one")
    tf = TokenFile(str(tok))
    assert tf.get() == "one"
    tok.write_text("second")  # a different size: the stamp changes even within one mtime tick
    assert tf.get() == "second"


def test_401_rereads_a_rotated_token_and_retries_once(tmp_path):
    tok = tmp_path / "token"
    tok.write_text("old")
    auth = KubeAuth(KubeConfig(server="http://k", origin="t", token_file=str(tok)))
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Authorization"])
        return httpx.Response(200 if request.headers["Authorization"] == "Bearer new" else 401)

    with httpx.Client(transport=httpx.MockTransport(handler), auth=auth) as client:
        assert client.get("http://k/api").status_code == 401  # the file still holds the old token: no retry
        st = os.stat(tok)
        tok.write_text("new")  # same size, and the same mtime below: the file looks unchanged
        os.utime(tok, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert client.get("http://k/api").status_code == 200
    assert seen == ["Bearer old", "Bearer old", "Bearer new"]


def test_rotated_service_account_token_is_used_by_the_source(tmp_path):
    tok = tmp_path / "token"
    tok.write_text("token-one")
    srv = ReplayServer(tokens={"token-one"}).start()
    src = KubeAPISource(KubeConfig(server=srv.url, origin="test", token_file=str(tok)), **FAST).start()
    try:
        wait_until(lambda: in_sync(src, srv))
        tok.write_text("token-two-rotated")
        srv.tokens = {"token-two-rotated"}  # the old token is no longer accepted
        srv.interrupt(PODS, "drop")
        wait_until(lambda: src.status()["pods"]["lists"] == 2 and in_sync(src, srv))  # re-listed with the new token
    finally:
        src.close()
        srv.stop()


# TLS ------------------------------------------------------------------------------------
def _pki(tmp_path: pathlib.Path) -> dict[str, bytes]:
    crypto = pytest.importorskip("cryptography")  # noqa: F841 - only to skip when absent
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    def key() -> Any:
        return ec.generate_private_key(ec.SECP256R1())

    def pem_key(k: Any) -> bytes:
        return k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())

    now = dt.datetime.now(dt.timezone.utc)

    def cert(subject: str, k: Any, issuer: tuple[str, Any] | None, *, ca: bool = False, sans: list | None = None,
             client: bool = False) -> Any:  # fmt: skip
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
        iname = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer[0])]) if issuer else name
        b = (x509.CertificateBuilder().subject_name(name).issuer_name(iname).public_key(k.public_key())
             .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(hours=1))
             .not_valid_after(now + dt.timedelta(days=1))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))  # fmt: skip
        if sans:
            b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        if client:
            b = b.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        return b.sign(issuer[1] if issuer else k, hashes.SHA256())

    import ipaddress

    ca_key = key()
    ca = cert("test-ca", ca_key, None, ca=True)
    srv_key = key()
    srv = cert("kube-apiserver", srv_key, ("test-ca", ca_key), sans=[x509.DNSName("kubernetes.default.svc")])
    ip_key = key()
    ip_srv = cert("kube-apiserver", ip_key, ("test-ca", ca_key), sans=[x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    cl_key = key()
    cl = cert("system:serviceaccount:gangplank:gangplank", cl_key, ("test-ca", ca_key), client=True)
    pem = serialization.Encoding.PEM
    out = {"ca": ca.public_bytes(pem), "srv": srv.public_bytes(pem), "srv_key": pem_key(srv_key),
           "ip": ip_srv.public_bytes(pem), "ip_key": pem_key(ip_key), "client": cl.public_bytes(pem),
           "client_key": pem_key(cl_key)}  # fmt: skip
    for k, v in out.items():
        (tmp_path / f"{k}.pem").write_bytes(v)
    return out


def _tls_server(tmp_path: pathlib.Path, pki: dict[str, bytes], cert: str) -> ReplayServer:
    import ssl

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(tmp_path / f"{cert}.pem"), str(tmp_path / f"{cert}_key.pem"))
    ctx.load_verify_locations(cadata=pki["ca"].decode())
    ctx.verify_mode = ssl.CERT_REQUIRED  # like an API server authenticating client certificates
    return ReplayServer(ssl_context=ctx).start()


def test_tls_with_ca_data_and_client_certificate_data_from_a_kubeconfig(tmp_path):
    pki = _pki(tmp_path)
    srv = _tls_server(tmp_path, pki, "ip")
    path = write_kubeconfig(
        tmp_path / "config",
        clusters=[{"name": "c", "cluster": {"server": srv.url, "certificate-authority-data": b64(pki["ca"])}}],
        users=[{"name": "u", "user": {"client-certificate-data": b64(pki["client"]), "client-key-data": b64(pki["client_key"])}}],
        contexts=[{"name": "x", "context": {"cluster": "c", "user": "u"}}], current="x")  # fmt: skip
    src = KubeAPISource(kubeconfig_config([path]), **FAST).start()
    try:
        wait_until(lambda: in_sync(src, srv))
    finally:
        src.close()
        srv.stop()


def test_tls_server_name_verifies_a_certificate_issued_for_the_service_name(tmp_path):
    pki = _pki(tmp_path)
    srv = _tls_server(tmp_path, pki, "srv")  # certificate for kubernetes.default.svc only
    base = {"server": srv.url, "certificate-authority": str(tmp_path / "ca.pem")}
    user = {"client-certificate": str(tmp_path / "client.pem"), "client-key": str(tmp_path / "client_key.pem")}
    made = []
    try:
        for name, cluster in (("plain", base), ("named", {**base, "tls-server-name": "kubernetes.default.svc"})):
            path = write_kubeconfig(tmp_path / name, clusters=[{"name": "c", "cluster": cluster}],
                                    users=[{"name": "u", "user": user}],
                                    contexts=[{"name": "x", "context": {"cluster": "c", "user": "u"}}], current="x")  # fmt: skip
            made.append(KubeAPISource(kubeconfig_config([path]), **FAST).start())
        plain, named = made
        wait_until(lambda: in_sync(named, srv))
        wait_until(lambda: "CERTIFICATE_VERIFY_FAILED" in plain.status()["nodes"]["error"])
        assert not plain.health()[0]
    finally:
        for s in made:
            s.close()
        srv.stop()


def test_tls_without_the_cluster_ca_is_refused(tmp_path):
    pki = _pki(tmp_path)
    srv = _tls_server(tmp_path, pki, "ip")
    cfg = KubeConfig(server=srv.url, origin="test", cert_data=pki["client"], key_data=pki["client_key"])
    src = KubeAPISource(cfg, **FAST).start()
    try:
        wait_until(lambda: "CERTIFICATE_VERIFY_FAILED" in src.status()["pods"]["error"])
        assert not src.health()[0]
    finally:
        src.close()
        srv.stop()


def test_a_bad_client_key_is_a_configuration_error(tmp_path):
    cfg = KubeConfig(server="https://k:6443", origin="kubeconfig x", cert_data=b"not a cert", key_data=b"not a key")
    with pytest.raises(KubeConfigError, match="cannot load the client certificate"):
        KubeAPISource(cfg)


# RBAC -----------------------------------------------------------------------------------
def test_cluster_role_lets_the_source_list_and_watch_every_resource_it_reads():
    docs = [d for d in yaml.safe_load_all((ROOT / "deploy/extender/rbac.yaml").read_text()) if d]
    role = next(d for d in docs if d["kind"] == "ClusterRole")
    for r in RESOURCES:
        assert any(r.group in rule["apiGroups"] and r.plural in rule["resources"] and {"list", "watch"} <= set(rule["verbs"])
                   for rule in role["rules"]), r.name  # fmt: skip


# The service: /readyz and the extender through the API source ----------------------------
@pytest.fixture()
def api_env(server, tmp_path, monkeypatch) -> Iterator[ReplayServer]:
    path = write_kubeconfig(tmp_path / "kubeconfig", clusters=[{"name": "replay", "cluster": {"server": server.url}}],
                            users=[{"name": "u", "user": {"token": "t"}}],
                            contexts=[{"name": "replay", "context": {"cluster": "replay", "user": "u"}}],
                            current="replay")  # fmt: skip
    monkeypatch.delenv("GANGPLANK_SNAPSHOT_DIR", raising=False)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    env = {"GANGPLANK_SNAPSHOT_SOURCE": "kubernetes", "GANGPLANK_KUBECONFIG": path,
           "GANGPLANK_KUBE_REQUEST_TIMEOUT_SECONDS": "0.3", "GANGPLANK_KUBE_WATCH_TIMEOUT_SECONDS": "2",
           "GANGPLANK_KUBE_PAGE_SIZE": "4", "GANGPLANK_KUBE_BACKOFF_INITIAL_SECONDS": "0.01",
           "GANGPLANK_KUBE_BACKOFF_MAX_SECONDS": "0.05", "GANGPLANK_KUBE_CRD_RECHECK_SECONDS": "0.2",
           "GANGPLANK_KUBE_MAX_STALENESS_SECONDS": "0.3", "GANGPLANK_KUBE_SNAPSHOT_INTERVAL_SECONDS": "0.2",
           "GANGPLANK_KUBE_SEED": "7"}  # fmt: skip
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    yield server
    close_source()


def call(client, verb: str, body: dict) -> Any:
    r = client.post(f"/extender/{verb}", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def test_readyz_is_not_ready_until_synced_then_ready_then_not_ready_when_stale(client, api_env):
    server = api_env
    server.fail(PODS, "hang", seconds=1.0)  # the first pod list hangs past the client's timeout
    r = client.get("/readyz")
    assert r.status_code == 503 and r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["status"] == 503 and "waiting for the first list of" in r.json()["detail"]
    assert client.get("/livez").status_code == 200
    wait_until(lambda: client.get("/readyz").status_code == 200)
    assert client.get("/readyz").json() == {"status": "ok"}
    server.stop()  # the API goes away: after 0.3 s the snapshot is too old
    wait_until(lambda: client.get("/readyz").status_code == 503)
    assert "the snapshot is stale (limit 0.3s" in client.get("/readyz").json()["detail"]
    assert client.get("/livez").json() == {"status": "ok"}
    out = call(client, "filter", {"Pod": server.item(PODS, "ml", "train-worker-0"), "NodeNames": ALL})
    assert out["Error"].startswith("no fresh cluster snapshot: the snapshot is stale") and out["NodeNames"] is None
    scores = call(client, "prioritize", {"Pod": server.item(PODS, "ml", "train-worker-0"), "NodeNames": ALL})
    assert scores == [{"Host": n, "Score": 0} for n in ALL]
    assert call(client, "bind", {"PodName": "x", "PodNamespace": "ml", "PodUID": "u", "Node": "node1"})["Error"]
    server.start()
    wait_until(lambda: client.get("/readyz").status_code == 200)


def test_readyz_reports_a_broken_source_configuration(client, monkeypatch, tmp_path):
    monkeypatch.setenv("GANGPLANK_SNAPSHOT_SOURCE", "kubernetes")
    monkeypatch.setenv("GANGPLANK_KUBECONFIG", str(tmp_path / "missing"))
    try:
        r = client.get("/readyz")
        assert r.status_code == 503 and "kubeconfig" in r.json()["detail"] and "missing" in r.json()["detail"]
        out = call(client, "filter", {"Pod": {"metadata": {"name": "p"}}, "NodeNames": ["a"]})
        assert "kubeconfig" in out["Error"]
        monkeypatch.setenv("GANGPLANK_SNAPSHOT_SOURCE", "etcd")
        assert "must be 'directory' or 'kubernetes'" in client.get("/readyz").json()["detail"]
    finally:
        close_source()


def test_readyz_follows_the_directory_source(client, monkeypatch, tmp_path):
    monkeypatch.delenv("GANGPLANK_SNAPSHOT_SOURCE", raising=False)
    monkeypatch.setenv("GANGPLANK_SNAPSHOT_DIR", str(tmp_path / "dumps"))
    try:
        assert client.get("/readyz").status_code == 503
        (tmp_path / "dumps").mkdir()
        assert client.get("/readyz").status_code == 200
    finally:
        close_source()


def test_the_source_is_built_once_per_configuration(api_env, monkeypatch):
    one = get_source()
    assert get_source() is one
    monkeypatch.setenv("GANGPLANK_KUBE_PAGE_SIZE", "5")
    two = get_source()
    assert two is not one and isinstance(two, KubeAPISource) and two.page_size == 5
    assert one._thread is not None and not one._thread.is_alive()  # the replaced source stopped watching


def test_a_gang_driven_pod_by_pod_through_the_api_source_ends_inside_one_allowed_hypernode(client, api_env, monkeypatch):
    from app.extender import plan as plan_mod

    server = api_env
    wait_until(lambda: client.get("/readyz").status_code == 200)
    source = get_source()
    plan_mod.forget_plans()
    planned = []
    real = plan_mod._plan_gang
    monkeypatch.setattr(plan_mod, "_plan_gang", lambda *a, **k: planned.append(a[3]) or real(*a, **k))
    chosen = {}
    for name in ("train-worker-0", "train-worker-1", "train-worker-2"):
        pod = server.item(PODS, "ml", name)
        f = call(client, "filter", {"Pod": pod, "Nodes": None, "NodeNames": ALL})
        assert f["Error"] == "" and f["NodeNames"], f
        assert "node0" not in f["NodeNames"]  # the busy node has no free GPU
        scores = call(client, "prioritize", {"Pod": pod, "Nodes": None, "NodeNames": f["NodeNames"]})
        best = max(scores, key=lambda h: (h["Score"], h["Host"]))["Host"]
        assert call(client, "bind", {"PodName": name, "PodNamespace": "ml", "PodUID": pod["metadata"]["uid"],
                                     "Node": best}) == {"Error": ""}  # fmt: skip
        chosen[name] = best
        # bind created the Binding in the cluster; the watch brings the bound pod, and the
        # next snapshot (at most 0.2 s later) replaces the assumption: wait for it, so the
        # next pod meets a new snapshot that the gang's plan must adopt
        wait_until(lambda uid=pod["metadata"]["uid"]: source.objects() is not None and uid not in source.live_assumptions())
    assert server.bindings == [("ml", n, chosen[n]) for n in ("train-worker-0", "train-worker-1", "train-worker-2")]
    wait_until(lambda: source.objects() is not None and not source.live_assumptions())
    assert planned == ["ml/train-worker-0"]  # snapshots showing the planned binds keep the gang's plan
    assert len(set(chosen.values())) == 3 and "node0" not in chosen.values()
    assert len({SPINE[n] for n in chosen.values()}) == 1  # the whole gang in one tier-2 HyperNode


def test_a_second_bind_of_a_pod_is_refused_by_the_check_or_the_api_server(client, api_env):
    server = api_env
    wait_until(lambda: client.get("/readyz").status_code == 200)
    pod = server.item(PODS, "ml", "train-worker-0")
    args = {"PodName": "train-worker-0", "PodNamespace": "ml", "PodUID": pod["metadata"]["uid"], "Node": "node4"}
    assert call(client, "bind", args) == {"Error": ""}
    again = call(client, "bind", {**args, "Node": "node5"})
    # refused before any request (assumed on node4, or the snapshot shows it bound there), or
    # by the API server when neither has been seen yet
    assert ("bind refused" in again["Error"] and "node4" in again["Error"]) or (
        "HTTP 409" in again["Error"] and "already assigned" in again["Error"])
    assert server.bindings == [("ml", "train-worker-0", "node4")]
    assert get_source().live_assumptions().get(pod["metadata"]["uid"]) in (None, "node4")  # the refused bind assumed nothing


def test_a_restarted_extender_keeps_the_gang_in_its_hypernode_and_never_double_books(client, api_env):
    # the extender binds train-worker-0 and is killed; the new instance knows nothing but the
    # cluster, where that bind is a Binding: the rest of the gang stays in that pod's tier-2
    # HyperNode and no bind lands on a node the bound pod already fills
    from app.extender import plan as plan_mod
    from app.extender.source import close_source

    server = api_env
    wait_until(lambda: client.get("/readyz").status_code == 200)
    first = server.item(PODS, "ml", "train-worker-0")
    f = call(client, "filter", {"Pod": first, "Nodes": None, "NodeNames": ALL})
    node = f["NodeNames"][0]
    assert call(client, "bind", {"PodName": "train-worker-0", "PodNamespace": "ml", "PodUID": first["metadata"]["uid"],
                                 "Node": node}) == {"Error": ""}  # fmt: skip
    close_source()  # kill -9: plans and assumptions are gone
    plan_mod.forget_plans()
    wait_until(lambda: client.get("/readyz").status_code == 200)
    src = get_source()
    wait_until(lambda: any(o.get("kind") == "Pod" and o["metadata"]["name"] == "train-worker-0"
                           and o["spec"].get("nodeName") == node for o in src.objects()))  # fmt: skip
    assert src.live_assumptions() == {}
    second = server.item(PODS, "ml", "train-worker-1")
    f = call(client, "filter", {"Pod": second, "Nodes": None, "NodeNames": ALL})
    assert f["NodeNames"] and {SPINE[n] for n in f["NodeNames"]} == {SPINE[node]}
    assert node not in f["NodeNames"]  # the bound pod fills it
    refused = call(client, "bind", {"PodName": "train-worker-1", "PodNamespace": "ml", "PodUID": second["metadata"]["uid"],
                                    "Node": node})  # fmt: skip
    assert "cannot hold" in refused["Error"]
    assert server.bindings == [("ml", "train-worker-0", node)]


def test_two_extender_instances_never_double_book_a_node_in_sequential_binds(server, make_source):
    # each instance checks the node's pods as the API server lists them just before it
    # binds: the other instance's bind counts even before any watch brings it
    a, b = make_source(), make_source()
    wait_until(lambda: ready(a) and ready(b))
    w0, w1 = server.item(PODS, "ml", "train-worker-0"), server.item(PODS, "ml", "train-worker-1")
    assert a.bind("ml", "train-worker-0", w0["metadata"]["uid"], "node4") == ""
    refused = b.bind("ml", "train-worker-1", w1["metadata"]["uid"], "node4")
    assert refused.startswith("bind refused:") and "node node4 cannot hold pod ml/train-worker-1" in refused
    assert server.bindings == [("ml", "train-worker-0", "node4")]
    assert b.bind("ml", "train-worker-1", w1["metadata"]["uid"], "node5") == ""


def test_dra_objects_are_listed_so_a_pod_with_claims_is_decided_with_them(server, make_source):
    """resource.k8s.io/v1 DeviceClasses, ResourceSlices and ResourceClaims are listed (optional:
    a cluster that does not serve v1 has none): the snapshot holds them, stamped, and the
    decision reads the claim a pod names (before, the extender refused such a pod everywhere:
    its claim was not found)."""
    dra = "/apis/resource.k8s.io/v1/"
    server.add_list(dra + "deviceclasses", "DeviceClassList", [{"metadata": {"name": "gpu", "resourceVersion": "1"}, "spec": {}}])
    server.add_list(dra + "resourceslices", "ResourceSliceList", [{
        "metadata": {"name": "n-gpus", "resourceVersion": "1"},
        "spec": {"driver": "gpu.example.com", "nodeName": "kind-worker", "pool": {"name": "p", "generation": 0, "resourceSliceCount": 1},
                 "devices": [{"name": "d0"}]}}])  # fmt: skip
    server.add_list(dra + "resourceclaims", "ResourceClaimList", [{
        "metadata": {"name": "c", "namespace": "default", "uid": "uid-c", "resourceVersion": "1"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}}])  # fmt: skip
    src = make_source()
    wait_until(lambda: in_sync(src, server))
    objs = src.objects()
    assert {(o["kind"], o["apiVersion"]) for o in objs if o["apiVersion"].startswith("resource.k8s.io")} == {
        ("DeviceClass", "resource.k8s.io/v1"), ("ResourceSlice", "resource.k8s.io/v1"), ("ResourceClaim", "resource.k8s.io/v1")}
    req = read_request({"objects": objs, "options": {"now": "2026-11-23T12:00:00Z"}}, Settings())
    assert ("default", "c") in req.cluster.dra.claims and "gpu" in req.cluster.dra.classes
