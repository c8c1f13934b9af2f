"""proportion's and overcommit's enqueue votes, rule by rule, as Volcano's source has them.

proportion (JobEnqueueableFn): a queue not Open rejects; else ``minResources + allocated +
inqueue − elastic <= realCapability`` on the resources the minResources asks for (never the
pod slot). At session open an Inqueue PodGroup reserves ``max(minResources − allocated, 0)``
(Volcano #5100), so does a Running one whose allocated pods reach minMember; elastic is what a
job holds beyond its minResources.

overcommit: ``inqueue + minResources <= total × factor − used`` on the requested resources
(never the pod slot); total and used over every node (Volcano reads no node condition), used counting every pod a node holds
(Releasing ones and pods without a PodGroup too); the one factor scales every resource. At
session open an Inqueue PodGroup reserves its whole minResources, a Running one at minMember
the rest of it. Both plugins deduct the requests of scheduling-gated pods.

Every cluster: one 8-CPU node n0 (overcommit: 8 × 1.2 = 9.6 CPU) and, for proportion, queue q
with a 4-CPU capability.
"""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, podgroup, queue, request


def config(plugin: str, arguments: dict | None = None) -> dict:
    entry: dict = {"name": plugin}
    if arguments:
        entry["arguments"] = arguments
    return {"actions": "enqueue, allocate", "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang"}]},
        {"plugins": [entry, {"name": "predicates"}]}]}  # fmt: skip


def admitted(client, objects: list[dict], plugin: str, arguments: dict | None = None) -> list[str]:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=config(plugin, arguments))),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return [k.removeprefix("default/") for k in r.json()["enqueued"]]


def asking(name: str, minimum: dict, *, q: str | None = None, created: str = "2026-11-23T09:30:00Z") -> list[dict]:
    """A Pending PodGroup of one pod whose minResources are `minimum` (the pod asks its cpu)."""
    pg = podgroup(name, queue=q, phase="Pending", created=created)
    pg["spec"]["minResources"] = minimum
    return [pg, pod(f"{name}-0", cpu=minimum.get("cpu", "1"), memory=None, group=name)]


def holding(name: str, pods: int, min_cpu: str | None, *, q: str | None = None) -> list[dict]:
    """A Running PodGroup with `pods` one-CPU pods running on n0, minResources `min_cpu` CPU."""
    pg = podgroup(name, queue=q, phase="Running")
    if min_cpu is not None:
        pg["spec"]["minResources"] = {"cpu": min_cpu}
    return [pg, *(pod(f"{name}-{i}", node="n0", cpu="1", memory=None, group=name) for i in range(pods))]


def partly_placed(phase: str, min_cpu: str, *, min_member: int = 1, q: str | None = None) -> list[dict]:
    """PodGroup x (minResources `min_cpu` CPU): one 1-CPU pod running on n0, one 2-CPU pod pending."""
    pg = podgroup("x", queue=q, phase=phase, min_member=min_member)
    pg["spec"]["minResources"] = {"cpu": min_cpu}
    return [pg, pod("x-0", node="n0", cpu="1", memory=None, group="x"), pod("x-1", cpu="2", memory=None, group="x")]


def n0() -> dict:
    return node("n0", cpu="8", gpu=None)


def q4(**extra) -> list[dict]:
    """n0 and queue q, whose capability is 4 CPU."""
    return [n0(), queue("q", capability={"cpu": "4", **extra})]


# -- proportion -------------------------------------------------------------------------------


def test_proportion_subtracts_what_running_jobs_hold_beyond_their_minimum(client):
    """r holds 3 CPU with minResources 1 CPU: 2 CPU elastic. y asking 3 CPU: 3 + 3 − 2 <= 4,
    admitted; with r's minimum at 3 CPU nothing is elastic (3 + 3 > 4); a PodGroup without
    minResources is elastic in full (4 + 3 − 3 <= 4)."""
    def objs(min_cpu: str | None, want: str) -> list[dict]:
        return q4() + holding("r", 3, min_cpu, q="q") + asking("y", {"cpu": want}, q="q")

    assert admitted(client, objs("1", "3"), "proportion") == ["y"]
    assert admitted(client, objs("3", "3"), "proportion") == []
    assert admitted(client, objs(None, "4"), "proportion") == ["y"]


def test_proportion_inqueue_podgroup_reserves_only_the_unplaced_part_of_its_minimum(client):
    """x (Inqueue, minResources 3 CPU) has a 1-CPU pod running: 1 CPU allocated and 3 − 1 = 2
    in queue (not 3: Volcano #5100). y asking 1 CPU: 1 + 1 + 2 <= 4, admitted; asking 2 CPU:
    2 + 1 + 2 > 4, not."""
    objs = q4() + partly_placed("Inqueue", "3", q="q")
    assert admitted(client, objs + asking("y", {"cpu": "1"}, q="q"), "proportion") == ["y"]
    assert admitted(client, objs + asking("y", {"cpu": "2"}, q="q"), "proportion") == []


def test_proportion_running_podgroup_at_its_min_member_reserves_the_rest_of_its_minimum(client):
    """x (Running, minResources 3 CPU, minMember 1) has a 1-CPU pod running: 2 CPU in queue, so
    y asking 2 CPU is not admitted (2 + 1 + 2 > 4). With minMember 2 its allocated pods do not
    reach minMember and it reserves nothing (2 + 1 <= 4)."""
    y = asking("y", {"cpu": "2"}, q="q")
    assert admitted(client, q4() + partly_placed("Running", "3", q="q") + y, "proportion") == []
    assert admitted(client, q4() + partly_placed("Running", "3", min_member=2, q="q") + y, "proportion") == ["y"]


def test_proportion_closed_queue_admits_nothing(client):
    q = queue("q")
    q["status"]["state"] = "Closed"
    assert admitted(client, [n0(), q, *asking("p", {"cpu": "1"}, q="q")], "proportion") == []
    assert admitted(client, [n0(), queue("q"), *asking("p", {"cpu": "1"}, q="q")], "proportion") == ["p"]


def test_proportion_never_compares_the_pod_slot(client):
    """q's capability allows one pod; p's minResources name two: admitted all the same."""
    assert admitted(client, q4(pods="1") + asking("p", {"cpu": "1", "pods": "2"}, q="q"), "proportion") == ["p"]


def test_proportion_compares_only_the_resources_the_minimum_asks_for(client):
    """q may hold 1Gi of memory and r's two pods already hold 2Gi; y asks only CPU
    (1 + 2 <= 4): admitted, q's memory is not looked at."""
    r = podgroup("r", queue="q", phase="Running", min_member=2)
    r["spec"]["minResources"] = {"cpu": "2", "memory": "2Gi"}
    objs = q4(memory="1Gi") + [r] + [pod(f"r-{i}", node="n0", cpu="1", memory="1Gi", group="r") for i in range(2)]
    assert admitted(client, objs + asking("y", {"cpu": "1"}, q="q"), "proportion") == ["y"]


# -- overcommit -------------------------------------------------------------------------------


def test_overcommit_inqueue_podgroup_reserves_its_whole_minimum(client):
    """x (Inqueue, minResources 4 CPU) has a 1-CPU pod running: idle = 9.6 − 1 = 8.6 and x
    still reserves all 4 CPU (overcommit has no #5100 deduction). y asking 5 CPU: 4 + 5 > 8.6,
    not admitted; asking 4 CPU: 4 + 4 <= 8.6, admitted."""
    assert admitted(client, [n0(), *partly_placed("Inqueue", "4"), *asking("y", {"cpu": "5"})], "overcommit") == []
    assert admitted(client, [n0(), *partly_placed("Inqueue", "4"), *asking("y", {"cpu": "4"})], "overcommit") == ["y"]


def test_overcommit_running_podgroup_at_its_min_member_reserves_the_rest_of_its_minimum(client):
    """x (Running, minResources 4 CPU, minMember 1) has a 1-CPU pod running: idle 8.6, in queue
    4 − 1 = 3. y asking 6 CPU: 3 + 6 > 8.6, not admitted; asking 5 CPU: 3 + 5 <= 8.6. With
    minMember 2 x reserves nothing (6 <= 8.6)."""
    x1, x2 = partly_placed("Running", "4"), partly_placed("Running", "4", min_member=2)
    assert admitted(client, [n0(), *x1, *asking("y", {"cpu": "6"})], "overcommit") == []
    assert admitted(client, [n0(), *x1, *asking("y", {"cpu": "5"})], "overcommit") == ["y"]
    assert admitted(client, [n0(), *x2, *asking("y", {"cpu": "6"})], "overcommit") == ["y"]


def test_overcommit_used_counts_releasing_pods_and_pods_without_a_podgroup(client):
    """A 3-CPU pod being deleted and a 2-CPU pod of no PodGroup run on n0: idle = 9.6 − 5 =
    4.6. y asking 5 CPU is not admitted, asking 4 CPU is."""
    gone = pod("gone", node="n0", cpu="3", memory=None)
    gone["metadata"]["deletionTimestamp"] = "2026-11-23T11:59:00Z"
    objs = [n0(), gone, pod("bare", node="n0", cpu="2", memory=None)]
    assert admitted(client, objs + asking("y", {"cpu": "5"}), "overcommit") == []
    assert admitted(client, objs + asking("y", {"cpu": "4"}), "overcommit") == ["y"]


def test_overcommit_counts_every_node_volcano_reads_no_node_condition(client):
    """n1 (8 CPU) is not Ready and runs a 4-CPU pod: Volcano's cache makes every node Ready
    (``setNodeState``), so both count: idle 16 x 1.2 - 4 = 15.2: y asking 16 CPU is not
    admitted, asking 15 CPU is."""
    objs = [n0(), node("n1", cpu="8", gpu=None, ready=False), pod("there", node="n1", cpu="4", memory=None)]
    assert admitted(client, objs + asking("y", {"cpu": "16"}), "overcommit") == []
    assert admitted(client, objs + asking("y", {"cpu": "15"}), "overcommit") == ["y"]


@pytest.mark.parametrize(("factor", "fits", "too_much"), [(None, "9", "10"), (1.5, "12", "13")])
def test_overcommit_factor_scales_every_resource(client, factor, fits, too_much):
    """n0 has 8 GPUs: with the default factor 9.6 of them may be admitted, with 1.5 twelve."""
    objs = [node("n0", cpu="8", gpu=8)]
    args = {"overcommit-factor": factor} if factor else None
    assert admitted(client, objs + asking("y", {"cpu": "1", "nvidia.com/gpu": fits}), "overcommit", args) == ["y"]
    assert admitted(client, objs + asking("y", {"cpu": "1", "nvidia.com/gpu": too_much}), "overcommit", args) == []


def test_overcommit_compares_only_the_resources_the_minimum_asks_for(client):
    """x (Inqueue) reserves 10 GPUs, more than n0's 8 × 1.2: y, asking only CPU, is admitted;
    z, asking one GPU, is not."""
    x = podgroup("x", phase="Inqueue")
    x["spec"]["minResources"] = {"nvidia.com/gpu": "10"}
    objs = [node("n0", cpu="8", gpu=8), x, pod("x-0", cpu=None, memory=None, gpu=10, group="x")]
    assert admitted(client, objs + asking("y", {"cpu": "1"}), "overcommit") == ["y"]
    assert admitted(client, objs + asking("z", {"cpu": "1", "nvidia.com/gpu": "1"}), "overcommit") == []


def test_overcommit_never_compares_the_pod_slot(client):
    """n0 allows 110 pods (132 with the factor); p's minResources name 200: admitted."""
    assert admitted(client, [n0(), *asking("p", {"cpu": "1", "pods": "200"})], "overcommit") == ["p"]


# -- both -------------------------------------------------------------------------------------


@pytest.mark.parametrize("plugin", ["proportion", "overcommit"])
def test_scheduling_gated_pods_are_deducted_from_what_an_admitted_podgroup_reserves(client, plugin):
    """x (minResources 4 CPU) has a 1-CPU pod and a scheduling-gated 3-CPU pod: admitted, it
    reserves 4 − 3 = 1 CPU, so y asking 3 CPU (after x) still fits q (1 + 3 <= 4) and the
    cluster (overcommit-factor 1: 1 + 3 <= 8 − 4 used by w). Ungated, x's 4 CPU leave y out."""

    def cluster(gated: bool) -> list[dict]:
        pg = podgroup("x", queue="q", phase="Pending", created="2026-11-23T08:00:00Z")
        pg["spec"]["minResources"] = {"cpu": "4"}
        extra = {"schedulingGates": [{"name": "example.com/wait"}]} if gated else None
        x = [pg, pod("x-0", cpu="1", memory=None, group="x"),
             pod("x-1", cpu="3", memory=None, group="x", extra_spec=extra)]
        w = pod("w", node="n0", cpu="4", memory=None)  # overcommit: 8 − 4 = 4 CPU idle
        return [*q4(), *(x + [w] if plugin == "overcommit" else x), *asking("y", {"cpu": "3"}, q="q")]

    args = {"overcommit-factor": 1.0} if plugin == "overcommit" else None
    assert admitted(client, cluster(True), plugin, args) == ["x", "y"]
    assert admitted(client, cluster(False), plugin, args) == ["x"]


# -- minResources as Volcano's NewResource reads them -------------------------------------------

#: The minResources Volcano's PodGroup controller writes for a pod on its own of 1 CPU, 1Gi
#: (``buildPodGroupFromPod``: ``CalTaskRequests``, the pod's quota usage ``GetPodQuotaUsage``:
#: each request under its name and ``requests.<name>``, its limits as ``limits.<name>``,
#: ``pods`` and ``count/pods``).
QUOTA_USAGE = {"count/pods": "1", "pods": "1", "cpu": "1", "requests.cpu": "1", "limits.cpu": "2",
               "memory": "1Gi", "requests.memory": "1Gi", "limits.memory": "2Gi"}  # fmt: skip


@pytest.mark.parametrize("plugin", ["overcommit", "proportion", "capacity"])
def test_min_resources_names_new_resource_drops_are_not_in_the_enqueue_vote(client, plugin):
    """``NewResource`` keeps cpu, memory, pods, ephemeral-storage and scalar resource names,
    never ``requests.*`` / ``limits.*`` quota names nor ``count/*``: a controller-made
    PodGroup asking 1 CPU is admitted on n0 (no node has a ``requests.cpu`` or
    ``count/pods`` to give), and one asking 5 CPU of q's 4 is not (cpu is compared)."""
    objs = q4() + asking("p", QUOTA_USAGE, q="q")
    assert admitted(client, objs, plugin) == ["p"]
    assert admitted(client, q4() + asking("p", {**QUOTA_USAGE, "cpu": "5", "requests.cpu": "5"}, q="q"), plugin) == (
        ["p"] if plugin == "overcommit" else [])  # (overcommit: 5 <= 9.6 idle)


def test_resourcequota_compares_the_quota_names_as_written(client):
    """The resourcequota plugin reads minResources as written: a ResourceQuota of
    ``requests.cpu: 1`` with 1 used refuses the controller-made PodGroup asking
    ``requests.cpu: 1`` more (2 > 1); one of ``requests.cpu: 2`` admits it."""
    def quota(hard: str) -> dict:
        return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "rq", "namespace": "default"},
                "status": {"hard": {"requests.cpu": hard}, "used": {"requests.cpu": "1"}}}  # fmt: skip

    assert admitted(client, q4() + asking("p", QUOTA_USAGE, q="q") + [quota("1")], "resourcequota") == []
    assert admitted(client, q4() + asking("p", QUOTA_USAGE, q="q") + [quota("2")], "resourcequota") == ["p"]
