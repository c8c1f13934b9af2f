"""KAI's SchedulingShard ``args`` (the scheduler's flags) on the ``kai`` profile
(``app.kai.flags``): the operator passes the scheduler's own flags after the ones it writes
(``buildArgsList``, pkg/operator/operands/scheduler/resources_for_shard.go, NVIDIA/KAI-Scheduler
at 72de64fc), the scheduler parses them with pflag (``cmd/scheduler/app/options/options.go``)
and reads them where each test's docstring says. Each cluster is small enough to check by
hand."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.kai.flags import parse_int_base0
from tests.kube import node, pod, request
from tests.test_kai import kai_queue

NS = "ml"


def kai_pg(name: str, queue: str, *, cls: str = "train", created: str = "2026-11-23T09:00:00Z") -> dict[str, Any]:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS, "creationTimestamp": created},
            "spec": {"minMember": 1, "queue": queue, "priorityClassName": cls}}  # fmt: skip


def one(name: str, queue: str, gpu: int | None, *, on: str | None = None, cls: str = "train", cpu: str = "1",
        created: str = "2026-11-23T09:00:00Z") -> list[dict[str, Any]]:  # fmt: skip
    """A one-pod KAI job (its PodGroup and pod), running on ``on`` or pending."""
    return [kai_pg(name, queue, cls=cls, created=created),
            pod(f"{name}-0", ns=NS, node=on, gpu=gpu, cpu=cpu, annotations={"pod-group-name": name})]  # fmt: skip


def post(client: Any, objects: list[dict[str, Any]], config: dict[str, Any]) -> Any:
    return client.post("/v1/decisions", content=orjson.dumps(request(objects, config=config)),
                       headers={"Content-Type": "application/json"})  # fmt: skip


def decide(client: Any, objects: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
    r = post(client, objects, config)
    assert r.status_code == 200, r.text
    return r.json()


def placed(out: dict[str, Any], name: str) -> str | None:
    for b in out["bindings"] + out["nominations"]:
        if b["pod"] == f"{NS}/{name}-0":
            return b["node"]
    return None


def conf(actions: str = "allocate", **args: str) -> dict[str, Any]:
    return {"profile": "kai", "actions": actions, "args": args}


CPU_W = {"node-role.kubernetes.io/cpu-worker": ""}
GPU_W = {"node-role.kubernetes.io/gpu-worker": ""}


# -- pflag's parsing ------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ("16", 16), ("+5", 5), ("-3", -3), ("0", 0), ("010", 8), ("0x10", 16), ("0X1f", 31), ("0o17", 15), ("0b101", 5),
    ("1_000", 1000), ("0x_1f", 31), ("0_7", 7), ("9223372036854775807", 2**63 - 1),
    ("-9223372036854775808", -(2**63)), ("-0x8000000000000000", -(2**63)),
    ("", None), ("-", None), ("08", None), ("0x", None), ("0b2", None), ("_1", None), ("1_", None), ("1__0", None),
    ("9223372036854775808", None), ("0x8000000000000000", None), ("1e3", None), (" 1", None), ("1.0", None),
    ("١٢", None),
])  # fmt: skip
def test_int_flags_parse_as_strconv_parse_int_base_0(text, want):
    """pflag's ``intValue.Set`` is ``strconv.ParseInt(s, 0, 64)``: base prefixes, a leading 0
    octal, ``_`` only between digits or after a prefix (``underscoreOK``), int64's range."""
    assert parse_int_base0(text) == want


@pytest.mark.parametrize(("flag", "value", "kind"), [
    ("max-consolidation-preemptees", "many", "invalid-config"),
    ("use-scheduling-signatures", "yes", "invalid-config"),
    ("restrict-node-scheduling", "", "invalid-config"),
    ("default-staleness-grace-period", "60", "invalid-config"),
    ("qps", "1.5", "invalid-config"),
    ("feature-gates", "DynamicResourceAllocation", "invalid-config"),
    ("scheduler-name", "my-kai", "not-implemented"),
    ("nodepool-label-key", "a/b/c", "invalid-config"),
])  # fmt: skip
def test_a_flag_value_the_scheduler_cannot_take_is_a_422_at_the_argument(client, flag, value, kind):
    """A value pflag refuses stops KAI's scheduler (a 422 ``invalid-config``); a flag read
    while the snapshot is read, at another value than KAI's default, is not modelled (a
    422 ``not-implemented``). Both name the argument."""
    r = post(client, [node("n1")], conf(**{flag: value}))
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["errors"][0]["pointer"] == f"/config/args/{flag}", body
    assert body["type"].endswith("/" + kind), body


def test_args_are_kai_only_and_values_are_strings(client):
    """``args`` is the SchedulingShard's ``map[string]string``, a field of the ``kai`` profile."""
    r = post(client, [node("n1")], {"profile": "volcano", "args": {"v": "4"}})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/config/args"
    r = post(client, [node("n1")], {"profile": "kai", "args": {"v": 4}})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/config/args/v"
    r = post(client, [node("n1")], {"profile": "kai", "args": ["v=4"]})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/config/args"


def test_flags_with_no_effect_and_unknown_flags_are_named_in_warnings(client):
    """The scheduler's service, logging and API-client flags change no decision; a name the
    scheduler does not define is dropped by KAI's operator: each named in a warning, the
    decision as without them."""
    objs = [node("n1"), kai_queue("q", 8), *one("a", "q", 1)]
    base = decide(client, objs, conf())
    out = decide(client, objs, conf(v="6", qps="100", **{"leader-elect": "true", "no-such-flag": "x"}))
    assert out["bindings"] == base["bindings"]
    assert any("--leader-elect, --qps, --v" in w and "no effect on a decision" in w for w in out["warnings"]), out["warnings"]
    assert any("'no-such-flag'" in w and "drops them" in w for w in out["warnings"]), out["warnings"]


def test_flags_at_kais_defaults_are_taken_without_a_warning(client):
    """A default-only flag at its default value, and a taken flag at its default, change
    nothing and say nothing."""
    objs = [node("n1"), kai_queue("q", 8), *one("a", "q", 1)]
    base = decide(client, objs, conf())
    out = decide(client, objs, conf(**{"scheduler-name": "kai-scheduler", "full-hierarchy-fairness": "true",
                                       "restrict-node-scheduling": "false", "schedule-csi-storage": "false"}))  # fmt: skip
    assert out["bindings"] == base["bindings"] and out["warnings"] == base["warnings"]


def test_flags_kai_takes_as_their_default_are_warned(client):
    """``schedule-csi-storage`` true (CSI storage capacity not modelled), ``detailed-fit-errors``
    (messages) and ``feature-gates``: the answer is as with the default, and says so."""
    out = decide(client, [node("n1")], conf(**{"schedule-csi-storage": "true", "detailed-fit-errors": "1",
                                               "feature-gates": "DynamicResourceAllocation=true"}))  # fmt: skip
    text = " ".join(out["warnings"])
    for flag in ("--schedule-csi-storage=true", "--detailed-fit-errors=1", "--feature-gates=DynamicResourceAllocation=true"):
        assert flag in text, out["warnings"]


# -- the flags applied ------------------------------------------------------------------------------
def test_restrict_node_scheduling_lists_only_nodes_with_a_worker_label(client):
    """``filterUnmarkedNodes``: with ``--restrict-node-scheduling`` the scheduler lists only
    nodes labelled with the CPU or the GPU worker label. n1 (no label) is emptier and would
    take the pod without the flag (binpack: n2 holds a pod); with it, the pod goes to n2 and
    the pod on n0 (unlabelled) is left out."""
    objs = [node("n1", gpu=None), node("n2", gpu=None, labels=CPU_W), kai_queue("q", 8),
            *one("busy", "q", None, on="n2", cpu="8"), *one("a", "q", None, cpu="60")]  # fmt: skip
    assert placed(decide(client, objs, conf()), "a") == "n1"
    out = decide(client, objs, conf(**{"restrict-node-scheduling": "true"}))
    assert placed(out, "a") is None  # (n2 has 56 cpu left)
    objs[-1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "40"
    out = decide(client, objs, conf(**{"restrict-node-scheduling": "true"}))
    assert placed(out, "a") == "n2"
    assert any("restrict-node-scheduling" in w and "n1" in w for w in out["warnings"]), out["warnings"]


def test_restrict_node_scheduling_puts_gpu_pods_on_gpu_nodes_and_cpu_pods_on_cpu_nodes(client):
    """The predicate under ``--restrict-node-scheduling``: a pod asking for any kind of GPU
    fits only a node with the GPU worker label, any other pod only a node with the CPU
    worker label, whatever the node offers (both nodes here have 8 GPUs and room)."""
    objs = [node("c", labels=CPU_W), node("g", labels=GPU_W), kai_queue("q", 8), *one("gpu", "q", 1),
            *one("cpu", "q", None, created="2026-11-23T09:01:00Z")]  # fmt: skip
    out = decide(client, objs, conf(**{"restrict-node-scheduling": "true"}))
    assert (placed(out, "gpu"), placed(out, "cpu")) == ("g", "c")
    # the labels' keys are the flags'
    flags = {"restrict-node-scheduling": "true", "gpu-worker-node-label-key": "role/cpu-worker",
             "cpu-worker-node-label-key": "role/gpu-worker"}  # fmt: skip
    objs[0] = node("c", labels={"role/cpu-worker": ""})
    objs[1] = node("g", labels={"role/gpu-worker": ""})
    out = decide(client, objs, conf(**flags))
    assert (placed(out, "gpu"), placed(out, "cpu")) == ("c", "g")


def test_restrict_node_scheduling_counts_no_gpus_of_a_node_without_the_gpu_label(client):
    """``getNodeResources``: under ``--restrict-node-scheduling`` a node without the GPU worker
    label adds its CPU and memory to the capacity the queues share, not its GPUs. Queue q has
    no quota and over-quota weight 1, so its fair share is the cluster's GPUs: with both nodes
    GPU-labelled (16 GPUs) its two 6-GPU pods (min 1) are placed, one per node; with c only
    CPU-labelled, c takes no GPU pod and q's share is g's 8 GPUs, and a second pod would not
    fit that share anyway: one pod, on g. The share itself is checked in the session."""
    q = kai_queue("q", 0, weight=1)
    gang = [kai_pg("j", "q"), *[pod(f"j-{i}", ns=NS, gpu=6, annotations={"pod-group-name": "j"}) for i in range(2)]]
    both = [node("c", labels={**CPU_W, **GPU_W}), node("g", labels=GPU_W), q, *gang]
    flag = conf(**{"restrict-node-scheduling": "true"})
    assert sorted(b["node"] for b in decide(client, both, flag)["bindings"]) == ["c", "g"]
    cpu_only = [node("c", labels=CPU_W), node("g", labels=GPU_W), q, *gang]
    assert [b["node"] for b in decide(client, cpu_only, flag)["bindings"]] == ["g"]
    assert _share_capacity(cpu_only, flag)[0] == 8.0
    assert _share_capacity(cpu_only, conf())[0] == 16.0


def _share_capacity(objects: list[dict[str, Any]], config: dict[str, Any]) -> Any:
    """The capacity KAI's proportion plugin divides among the queues, in a session opened as
    the service opens one (the request carrying ``config``)."""
    from app.framework.config import load_config
    from app.framework.session import Session
    from app.ingest.request import read_request
    from app.plugins import PLUGINS, PROFILE_PLUGINS
    from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
    from app.settings import Settings

    req = read_request(orjson.loads(orjson.dumps(request(objects, config=config))), Settings())
    cfg = load_config(config, known_actions=KNOWN_ACTIONS, action_aliases={}, known_plugins=KNOWN_PLUGINS)
    return Session(req.cluster, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS).plugins["proportion"].capacity


def test_project_level_fairness_puts_every_child_queue_under_one_unlimited_queue(client):
    """``snapshotQueues`` under ``--full-hierarchy-fairness=false``: every queue with a parent
    becomes a child of one ``default`` queue without quota or limit; queues without a parent
    are not listed. ``dept``'s GPU limit of 2 holds ``team``'s 4-GPU job back in the full
    hierarchy, not at project level; a job of ``dept`` itself is never placed: in the full
    hierarchy ``dept`` is no leaf queue, at project level it is not listed (no parent)."""
    dept = kai_queue("dept", 2, limit=2)
    team = kai_queue("team", 8, parent="dept")
    objs = [node("n1"), dept, team, *one("a", "team", 4), *one("d", "dept", 1, created="2026-11-23T09:01:00Z")]
    full = decide(client, objs, conf())
    assert placed(full, "a") is None and placed(full, "d") is None
    flat = decide(client, objs, conf(**{"full-hierarchy-fairness": "false"}))
    assert placed(flat, "a") == "n1" and placed(flat, "d") is None
    assert any("project-level fairness" in w and "'dept'" in w for w in flat["warnings"]), flat["warnings"]


def test_mig_worker_label_key_is_the_label_that_marks_a_mig_node(client):
    """``IsMIGEnabled`` reads the node label ``--mig-worker-node-label-key`` names: a node
    whose label says MIG with the mixed strategy takes no whole-GPU pod
    (``PredicateByNodeResourcesType``); under KAI's default key the same node is not a MIG
    node and takes it."""
    mig_node = node("n1", labels={"example.com/mig": "true", "nvidia.com/mig.strategy": "mixed"})
    objs = [mig_node, kai_queue("q", 8), *one("a", "q", 1)]
    assert placed(decide(client, objs, conf()), "a") == "n1"
    assert placed(decide(client, objs, conf(**{"mig-worker-node-label-key": "example.com/mig"})), "a") is None


def _reclaim_cluster() -> list[dict[str, Any]]:
    """Queues a and b, 4 GPUs of quota each, no over-quota weight; two 4-GPU nodes. b holds
    5 GPUs: v1 (1 GPU, oldest) and v2 (2 GPUs) on n1, keep (2 GPUs, ``inference``: not
    preemptible) on n2. a's 4-GPU pod needs a whole node: only n1 can be emptied (v1 and v2);
    the simulation places the reclaimer there, then moves one victim to n2's two free GPUs
    and evicts the other."""
    return [node("n1", gpu=4), node("n2", gpu=4), kai_queue("a", 4, weight=0), kai_queue("b", 4, weight=0),
            *one("v1", "b", 1, on="n1", created="2026-11-23T08:00:00Z"),
            *one("v2", "b", 2, on="n1", created="2026-11-23T08:30:00Z"),
            *one("keep", "b", 2, on="n2", cls="inference"), *one("r", "a", 4, created="2026-11-23T11:00:00Z")]  # fmt: skip


def test_allow_consolidating_reclaim_off_counts_moved_victims_as_reclaimed(client):
    """``getResources(allowConsolidatingReclaim, ...)``: by default a victim the simulation
    placed again (moved) reclaims nothing, so only the evicted one (a chunk taken while b is
    at 5 GPUs, over its 4) counts, and the reclaim stands; with
    ``--allow-consolidating-reclaim=false`` both victims count, and the second chunk is taken
    from b at or below its fair share: the scenario is refused and nothing is reclaimed."""
    objs = _reclaim_cluster()
    out = decide(client, objs, conf("allocate, reclaim"))
    assert placed(out, "r") == "n1"
    assert len(out["evictions"]) == 2  # (one evicted, one moved to n2)
    assert any(e.get("moveTo") == "n2" for e in out["evictions"]), out["evictions"]
    off = decide(client, objs, conf("allocate, reclaim", **{"allow-consolidating-reclaim": "false"}))
    assert placed(off, "r") is None and off["evictions"] == []


def test_flags_set_the_kai_actions_arguments(client):
    """``--max-consolidation-preemptees``, ``--use-scheduling-signatures`` and
    ``--default-staleness-grace-period`` are the session's values the actions read: here the
    consolidation, preempt / reclaim / consolidation and stalegangeviction arguments of those
    names; one the request's ``configurations`` also sets keeps that value, with a warning."""
    from app.framework.config import load_config
    from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS

    def load(raw: dict[str, Any]) -> Any:
        return load_config(raw, known_actions=KNOWN_ACTIONS, action_aliases={}, known_plugins=KNOWN_PLUGINS)

    cfg = load({"profile": "kai", "args": {"max-consolidation-preemptees": "0x10", "use-scheduling-signatures": "F",
                                           "default-staleness-grace-period": "1m30s"}})  # fmt: skip
    assert cfg.action_args["consolidation"]["maxConsolidationPreemptees"] == 16
    assert all(cfg.action_args[a]["useSchedulingSignatures"] is False for a in ("consolidation", "reclaim", "preempt"))
    assert cfg.action_args["stalegangeviction"]["defaultStalenessGracePeriod"] == 90.0
    cfg = load({"profile": "kai", "args": {"max-consolidation-preemptees": "3"},
                "configurations": [{"name": "consolidation", "arguments": {"maxConsolidationPreemptees": 5}}]})  # fmt: skip
    assert cfg.action_args["consolidation"]["maxConsolidationPreemptees"] == 5
    assert any("maxConsolidationPreemptees" in w and "configurations' value" in w for w in cfg.warnings)


def test_staleness_grace_period_flag_decides_when_a_stale_gang_is_evicted(client):
    """``stalegangeviction`` with ``--default-staleness-grace-period``: a gang of minimum 2
    with one pod running, stale since 5 minutes (its ``kai.scheduler/stale-podgroup-timestamp``),
    is evicted past KAI's default grace of 60s and kept under a 10-minute one."""
    pg = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
          "metadata": {"name": "g", "namespace": NS, "creationTimestamp": "2026-11-23T09:00:00Z",
                       "annotations": {"kai.scheduler/stale-podgroup-timestamp": "2026-11-23T11:55:00Z"}},
          "spec": {"minMember": 2, "queue": "q", "priorityClassName": "train"}}  # fmt: skip
    objs = [node("n1"), kai_queue("q", 8), pg, pod("g-0", ns=NS, node="n1", gpu=1, annotations={"pod-group-name": "g"})]
    default = decide(client, objs, conf("stalegangeviction"))
    longer = decide(client, objs, conf("stalegangeviction", **{"default-staleness-grace-period": "10m"}))
    assert [e["pod"] for e in default["evictions"]] == [f"{NS}/g-0"], default
    assert longer["evictions"] == []


def test_partition_label_value_flag_overrides_the_shard_field(client):
    """The operator writes ``--partition-label-value`` from ``partitionLabelValue`` and the
    shard's ``args`` after it: the later flag wins."""
    pooled = node("p1", labels={"kai.scheduler/node-pool": "pool-a"})
    objs = [node("n1"), pooled, kai_queue("q", 8), *one("a", "q", 1)]
    assert placed(decide(client, objs, {"profile": "kai", "actions": "allocate"}), "a") == "n1"
    out = decide(client, objs, {"profile": "kai", "actions": "allocate", "partitionLabelValue": "pool-b",
                                "args": {"partition-label-value": ""}})  # fmt: skip
    assert placed(out, "a") == "n1"


def test_usage_db_config_is_taken_with_a_warning(client):
    """``usageDBConfig``: a snapshot holds no past usage; the decision is KAI's without a
    usage database, and the warnings say so."""
    objs = [node("n1"), kai_queue("q", 8), *one("a", "q", 1)]
    out = decide(client, objs, {"profile": "kai", "usageDBConfig": {"clientType": "prometheus",
                                                                     "connectionString": "http://prom:9090"}})  # fmt: skip
    assert placed(out, "a") == "n1"
    assert any(w.startswith("usageDBConfig") for w in out["warnings"]), out["warnings"]
    r = post(client, objs, {"profile": "kai", "usageDBConfig": "prometheus"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/config/usageDBConfig"


def test_queue_label_key_is_the_label_a_shared_gpu_claim_names_its_queue_with(client):
    """``validateSharedGpuClaimQueueLabel`` (the dynamicresources plugin) reads the claim's
    label ``--queue-label-key`` names: a GPU claim the pod names directly, labelled
    ``example.com/queue: q``, lacks KAI's default label (the pod waits) and carries the
    flag's (the pod is placed)."""
    from tests.test_kai_dra import claim, device_class, job, pool

    objs = [node("b", gpu=None), kai_queue("q", 8), device_class("gpu.example.com"),
            pool("b-gpus", "gpu.example.com", 1, node_name="b"),
            claim("c", "gpu.example.com", labels={"example.com/queue": "q"}), *job("w", "c")]  # fmt: skip
    assert placed(decide(client, objs, conf()), "w") is None
    assert placed(decide(client, objs, conf(**{"queue-label-key": "example.com/queue"})), "w") == "b"


@pytest.mark.parametrize("bulk", [True, False], ids=["pods as columns", "pods as objects"])
def test_resource_reservation_app_label_names_kais_gpu_reservation_pods(client, bulk):
    """``IsResourceReservationTask`` compares the pod's ``app`` label with
    ``--resource-reservation-app-label``: such a pod holds no GPU on its node (its group's
    GPU is counted through the fractions on it). n1 has 2 GPUs, one shared by a half-GPU pod
    of group g1 whose reservation pod is labelled ``app: my-reservation``: under KAI's default
    label that pod holds its GPU too, so a pending whole-GPU pod finds none free; with the
    flag naming the label, it takes the second GPU."""
    from unittest.mock import patch

    from app.ingest import build
    from tests.test_kai_reservation_pods import shared_gpu_cluster

    objs = shared_gpu_cluster()
    objs[3]["metadata"]["labels"]["app"] = "my-reservation"
    with patch.object(build, "BULK", bulk):
        default = decide(client, objs, {"profile": "kai"})
        flagged = decide(client, objs, {"profile": "kai", "args": {"resource-reservation-app-label": "my-reservation"}})
    assert default["bindings"] == []
    assert [(b["pod"], b["node"]) for b in flagged["bindings"]] == [("default/new", "n1")]


def test_nodepool_label_key_is_the_label_of_the_node_pool_selector(client):
    """``SchedulingNodePoolParams.GetLabelSelector`` with ``--nodepool-label-key``: the default
    shard lists the Nodes (Queues, PodGroups) without that label. n1 is labelled with KAI's
    default key, n2 with ``example.com/pool`` and holds a running pod, so binpack puts the new
    pod on n2 wherever n2 is listed. Under KAI's default key n1 is another pool's (named in
    the warnings) and the pod goes to n2; under ``example.com/pool`` n2 is left out and the pod
    goes to n1; an empty key is no selector: both are listed (no node-pool warning), n2 again."""
    busy = one("busy", "q", 1, on="n2", cpu="32")
    objs = [node("n1", labels={"kai.scheduler/node-pool": "a"}), node("n2", labels={"example.com/pool": "b"}),
            kai_queue("q", 8), *busy, *one("a", "q", 1, created="2026-11-23T09:05:00Z")]  # fmt: skip
    out = decide(client, objs, conf())
    assert placed(out, "a") == "n2" and any("kai.scheduler/node-pool" in w and "n1" in w for w in out["warnings"])
    out = decide(client, objs, conf(**{"nodepool-label-key": "example.com/pool"}))
    assert placed(out, "a") == "n1" and any("example.com/pool" in w and "n2" in w for w in out["warnings"])
    out = decide(client, objs, conf(**{"nodepool-label-key": ""}))
    assert placed(out, "a") == "n2"
    assert not any("node-pool" in w or "example.com/pool" in w for w in out["warnings"]), out["warnings"]

