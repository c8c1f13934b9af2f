"""KAI-Scheduler's snapshot tests (how KAI reads the cluster's objects before a session) and
its node-validity tests, as decisions of the ``kai`` profile.

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092:

* ``pkg/scheduler/cache/cluster_info/cluster_info_test.go`` — ``TestSnapshotNodes``,
  ``TestSnapshotPodGroups``, ``TestSnapshotPodGroups_QueueDoesNotExist_AddsJobFitError``,
  ``TestSnapshotQueues``, ``TestGetPodGroupPriority``, ``TestGetPodGroupPriorityNotExistingPriority``,
  ``TestGetDefaultPriority``, ``TestGetDefaultPriorityNotExists``, ``TestGetDefaultPriorityWithError``,
  ``TestPodGroupWithIndexNoSubGroups``, ``TestPodGroupWithIndexWithSubGroups``,
  ``TestIsPodGroupUpForScheduler``, ``TestSnapshotPodsInPartition`` (the code:
  ``cluster_info.go``, ``queue.go``, ``data_lister/kubernetes_lister.go``);
* ``pkg/scheduler/cache/cluster_info/queue_test.go`` — ``TestUpdateQueueHierarchySetChildQueues``;
* ``pkg/scheduler/scheduler_util/scheduler_utils_test.go`` — ``TestValidateReadyNode``,
  ``TestValidateUnreadyNode``, ``TestValidateUnknownReadyNode``, ``TestValidateUnschedulableNode``,
  ``TestValidateNodeWithCustomCondition``, ``TestNodeWithMemoryPressure``, ``TestNodeWithDiskPressure``,
  ``TestNodeWithPIDPressure``, ``TestNodeWithUnavailableNetwork`` (the code: ``scheduler_utils.go``
  ``CheckNodeConditionPredicate`` / ``ValidateIsNodeReady``, read by the predicates plugin
  (``plugins/predicates/predicates.go:214``), the proportion plugin's capacity
  (``plugins/proportion/proportion.go:261``) and ``IsEnoughGPUsAllocatableForJob``
  (``actions/utils/action.go:146``, consolidation's gate: Gangplank's ``enough_gpus`` counts the
  Ready nodes, ``app/kai/actions.py:408``, a difference no answer shows on its own, since a
  consolidation that succeeds moves pods only among nodes the predicate admits));
* ``pkg/scheduler/api/pod_status/pod_status_test.go`` — ``TestIsAliveStatus``.

How the cases map to decisions
------------------------------

The Go tests call the snapshot's functions (``snapshotPodGroups``, ``snapshotQueues``,
``getPodGroupPriority``, ``isPodGroupUpForScheduler``, ...) on a fake API server. Here the same
objects (a KAI ``Queue``, ``PodGroup``, ``Pod``, ``Node``, ``PriorityClass``) are posted to
``/v1/decisions`` with ``{"profile": "kai", "actions": "allocate"}``, and the answer is compared
with what KAI's session does with the snapshot the Go code builds:

* a PodGroup left out of the snapshot (not this shard's, backed off), or kept with a queue the
  session lacks (``InitializeWithJobs`` skips it: ``actions/utils/input_jobs.go:47-64``), is never
  placed, while the other jobs are;
* a node left out of the snapshot, or one ``CheckNodeConditionPredicate`` refuses, takes no pod;
* a PodGroup's priority (``getPodGroupPriority`` / ``getDefaultPriority``) shows in allocate's job
  order: in one queue with room for one pod, the job of higher priority goes first, the older
  one on a tie; the priority is pinned by a rival of value v - 1 (it loses) and v (it wins, being
  older);
* a PodGroup's pod sets (``SetPodGroup``) show in the gang: the job is placed whole or not at all;
* a PodGroup's preemptibility, derived from that priority (``CalculatePreemptibility``), shows in
  allocate's quota check: a non-preemptible job may not go over its queue's quota.

Where only an internal value shows the rule (the proportion plugin's capacity, a job's pod sets
as the ingest reads them, the set of alive statuses), Gangplank's own function is called, as
each test's docstring says.

KAI's default shard: the operator's ``default-shard.yaml`` sets ``partitionLabelValue: ""`` and
the global ``nodePoolLabelKey`` is ``kai.scheduler/node-pool``, so the default scheduler lists
nodes, queues and PodGroups with the selector ``!kai.scheduler/node-pool``
(``SchedulingNodePoolParams.GetLabelSelector``). Gangplank models that shard only. The Go tests
that set another shard (``NodePoolLabelValue: "foo"``) or label an object with a node pool are
transcribed for the default shard: an object of another pool is one the default shard does not
see, and a PodGroup's node pool, in ``TestIsPodGroupUpForScheduler``, is moved to the default
pool (a condition of the PodGroup's own pool is one of ``default``, a condition of another pool
stays of another pool), which keeps each row's answer.

Found here and fixed: node pressure conditions and cordoned nodes (``CheckNodeConditionPredicate``
in the predicates plugin and the fair-share capacity: ``Session.node_rule``,
``tests/test_node_conditions.py``); the children of an orphan queue, which KAI deletes with it
(``queue.go:105-129``; Gangplank admitted a queue whose own parent existed, placed their jobs, and
beside another top queue answered a 500: ``KaiFairShare._drop_orphans``); a PodGroup of a missing
queue (``cluster_info.go:383-385``, ``input_jobs.go:47-51``: kept unscheduled, the rest scheduled;
Gangplank answered a 422: ``Cluster.missing_queues``); a pod naming a missing PodGroup
(``cluster_info.go:294``: still on its node; Gangplank answered a 422: ``Cluster.absent_groups``);
``schedulingBackoff`` (``cluster_info.go:375``, ``:575-591``: a PodGroup backed off in its own node
pool is left out of the cycle; Gangplank read neither field: ``kube.kai_backed_off``); the node-pool
partition (``kubernetes_lister.go:103-117``: the default shard does not see nodes, queues or PodGroups
labelled ``kai.scheduler/node-pool``; Gangplank read no such label: ``app.ingest.nodepool``).

Not transcribed
---------------

* ``TestSnapshot``, ``TestSnapshotUsage``, ``TestBindRequests``, ``TestSnapshotStorageObjects``,
  ``TestSnapshotWithListerErrors``, ``TestNewClusterInfoErrorPartitionSelector``,
  ``TestNewClusterInfoAddIndexerFails``, ``TestSnapshotNodesWithDRAGPUs`` (cluster_info_test.go),
  ``indexers_test.go``, ``storage_test.go``'s ``TestSetStorageObjects*``: not in this
  transcription's brief (lister errors, an informer indexer, the usage database client and object
  counts are KAI's own machinery; bind requests, DRA GPUs and storage are other transcriptions').
* ``TestNotSchedulingPodWithTerminatingPVC``, ``TestSetNodesAccessibleCapacities``,
  ``TestSetNodesAccessibleCapacities_DisableMultiCapacity``: KAI's CSI storage-capacity scheduling,
  on only with ``--schedule-csi-storage`` (off by default, ``cmd/scheduler/app/options``); Gangplank
  does not model PVCs, storage classes or ``CSIStorageCapacity`` objects.
* ``TestSnapshotFlatHierarchy``: ``--full-hierarchy-fairness=false`` (project-level fairness: every
  queue with a parent hangs from an implied ``default`` department, the departments dropped) is
  not KAI's default (``true``) and the ``kai`` profile has no setting for it (the test's shard is
  ``nodepool-a``, too).
* ``TestPodGroupWithIndex``, ``TestPodGroupWithIndexNonMatching``: they assert that
  ``SetPodGroup`` copies the PodGroup's UID into ``PodGroupInfo.PodGroupUID``, a Go field no
  answer shows (Gangplank keys a job by namespace/name).
* ``TestSnapshotPodGroups_QueueDoesNotExist_AddsJobFitError``'s fit-error message
  (``QueueDoesNotExist``, "Queue 'nonexistent-queue' does not exist") is a PodGroup condition KAI
  writes; its effect on the decision (the job is not placed, the others are) is transcribed.
* ``TestSnapshotQueues``' display name (``spec.displayName`` as ``QueueInfo.Name``): a name in
  KAI's logs and metrics, no answer shows it.
* ``pkg/scheduler/k8s_utils/k8s_utils_test.go`` (``PatchPodAnnotationsAndLabelsInterface``): a
  merge patch KAI sends to the API server; no decision depends on it.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.framework.config import load_config
from app.framework.session import Session
from app.ingest.request import read_request
from app.kai.actions import ALIVE
from app.kai.context import KaiContext
from app.kai.jobs import View
from app.model.cluster import TaskStatus
from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS, PLUGINS, PROFILE_PLUGINS
from app.settings import Settings
from tests.kube import node, pod, post_decision, priority_class, request

NS = "test"
NODE_POOL = "kai.scheduler/node-pool"  # constants.DefaultNodePoolLabelKey, the default shard's partition key
KAI = {"profile": "kai", "actions": "allocate"}
T0 = "2026-11-23T08:00:00Z"  # an older object
T1 = "2026-11-23T09:00:00Z"  # a newer one


# -- objects ------------------------------------------------------------------------------
def kai_queue(name: str, *, parent: str | None = None, labels: dict[str, str] | None = None,
              gpu_quota: float = 8) -> dict[str, Any]:  # fmt: skip
    """A KAI Queue with a GPU quota (CPU and memory unlimited)."""
    spec: dict[str, Any] = {"resources": {"gpu": {"quota": gpu_quota, "overQuotaWeight": 1, "limit": -1},
                                          "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                                          "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}}}  # fmt: skip
    if parent:
        spec["parentQueue"] = parent
    meta: dict[str, Any] = {"name": name, "creationTimestamp": T0}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": meta, "spec": spec}


def kai_podgroup(name: str, queue: str, *, min_member: int = 1, priority_class_name: str | None = None,
                 labels: dict[str, str] | None = None, sub_groups: list[dict[str, Any]] | None = None,
                 spec: dict[str, Any] | None = None, status: dict[str, Any] | None = None,
                 created: str = T1) -> dict[str, Any]:  # fmt: skip
    s: dict[str, Any] = {"minMember": min_member, "queue": queue}
    if priority_class_name is not None:
        s["priorityClassName"] = priority_class_name
    if sub_groups is not None:
        s["subGroups"] = sub_groups
    s.update(spec or {})
    meta: dict[str, Any] = {"name": name, "namespace": NS, "uid": f"uid-{name}", "creationTimestamp": created}
    if labels:
        meta["labels"] = labels
    out: dict[str, Any] = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": meta, "spec": s}
    if status is not None:
        out["status"] = status
    return out


def kai_pod(name: str, group: str | None, *, gpu: int | None = 1, cpu: str = "1", memory: str = "1Gi",
            node_name: str | None = None, phase: str | None = None, subgroup: str | None = None,
            extra: dict[str, str] | None = None, extra_spec: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """A pod of KAI's (``schedulerName: kai-scheduler``) in PodGroup ``group`` (its
    ``pod-group-name`` annotation), with ``extra`` more container requests."""
    ann = {"pod-group-name": group} if group else {}
    labels = {"kai.scheduler/subgroup-name": subgroup} if subgroup else None
    o = pod(name, ns=NS, node=node_name, phase=phase, cpu=cpu, memory=memory, gpu=gpu, labels=labels,
            annotations=ann, extra_spec={"schedulerName": "kai-scheduler", **(extra_spec or {})})  # fmt: skip
    for k, v in (extra or {}).items():
        o["spec"]["containers"][0]["resources"]["requests"][k] = v
    return o


def job(name: str, queue: str, n: int = 1, **kw: Any) -> list[dict[str, Any]]:
    """A PodGroup of ``n`` one-GPU pods ``<name>-<i>`` (``kw``: the PodGroup's)."""
    pod_kw = {k: kw.pop(k) for k in ("gpu", "cpu", "memory", "extra") if k in kw}
    return [kai_podgroup(name, queue, min_member=kw.pop("min_member", n), **kw),
            *(kai_pod(f"{name}-{i}", name, **pod_kw) for i in range(n))]  # fmt: skip


def decide(client: Any, objects: list[dict[str, Any]], config: dict[str, Any] = KAI) -> dict[str, Any]:
    return post_decision(objects, config, client=client)


def placed(out: dict[str, Any]) -> dict[str, str]:
    """Each pod bound or nominated by the answer (name without namespace) -> its node."""
    return {b["pod"].split("/", 1)[1]: b["node"] for b in [*out["bindings"], *out["nominations"]]}


def placed_jobs(out: dict[str, Any]) -> set[str]:
    return {b["job"].split("/", 1)[1] for b in [*out["bindings"], *out["nominations"]]}


# -- scheduler_utils_test.go: node validity -----------------------------------------------
def conditions_node(name: str, conditions: list[tuple[str, str]], *, unschedulable: bool = False,
                    **kw: Any) -> dict[str, Any]:  # fmt: skip
    """``createTestNode``: the node with exactly these ``(type, status)`` conditions."""
    n = node(name, unschedulable=unschedulable, **kw)
    n["status"]["conditions"] = [{"type": t, "status": s} for t, s in conditions]
    return n



#: (Go test, conditions, spec.unschedulable, whether KAI deems the node valid)
NODE_STATES = [
    ("TestValidateReadyNode", [("Ready", "True")], False, True),
    ("TestValidateUnreadyNode", [("Ready", "False")], False, False),
    ("TestValidateUnknownReadyNode", [("Ready", "Unknown")], False, False),
    ("TestValidateUnschedulableNode", [("Ready", "True")], True, False),
    ("TestValidateNodeWithCustomCondition", [("Ready", "True"), ("CustomCondition", "True")], False, True),
    ("TestNodeWithMemoryPressure", [("Ready", "True"), ("MemoryPressure", "True")], False, False),
    ("TestNodeWithDiskPressure", [("Ready", "True"), ("DiskPressure", "True")], False, False),
    ("TestNodeWithPIDPressure", [("Ready", "True"), ("PIDPressure", "True")], False, False),
    ("TestNodeWithUnavailableNetwork", [("Ready", "True"), ("NetworkUnavailable", "True")], False, False),
]


def _state_params() -> list[Any]:
    return [pytest.param(conds, unsched, valid, id=name) for name, conds, unsched, valid in NODE_STATES]


@pytest.mark.parametrize(("conditions", "unschedulable", "valid"),
                         _state_params())
def test_a_pod_is_placed_only_on_a_node_that_passes_the_node_condition_predicate(
        client: Any, conditions: list[tuple[str, str]], unschedulable: bool, valid: bool) -> None:  # fmt: skip
    """``scheduler_utils_test.go`` (the test named by the row): ``CheckNodeConditionPredicate``,
    which the predicates plugin runs on every node before the Kubernetes filters
    (``predicates.go:214``): the node must not be ``spec.unschedulable``, its ``Ready`` condition
    ``True``, its ``MemoryPressure`` / ``DiskPressure`` / ``PIDPressure`` / ``NetworkUnavailable``
    conditions ``False``; other conditions are not read. One such node, one pending one-GPU pod:
    KAI binds it there iff the node is valid."""
    objs = [conditions_node("n1", conditions, unschedulable=unschedulable), kai_queue("q"), *job("j", "q")]
    assert placed(decide(client, objs)) == ({"j-0": "n1"} if valid else {})


def test_an_unschedulable_node_takes_no_pod_even_one_tolerating_the_unschedulable_taint(client: Any) -> None:
    """``scheduler_utils_test.go TestValidateUnschedulableNode``: ``spec.unschedulable`` alone makes
    the node invalid; ``CheckNodeConditionPredicate`` runs before the Kubernetes filters
    (``predicates.go:214``) and reads no toleration, so even a pod tolerating
    ``node.kubernetes.io/unschedulable:NoSchedule`` is not placed there."""
    objs = [conditions_node("n1", [("Ready", "True")], unschedulable=True), kai_queue("q"), *job("j", "q")]
    objs[-1]["spec"]["tolerations"] = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                                        "effect": "NoSchedule"}]  # fmt: skip
    assert placed(decide(client, objs)) == {}


@pytest.mark.parametrize(("conditions", "valid"), [
    pytest.param([], True, id="no conditions"),
    pytest.param([("Ready", "True"), ("MemoryPressure", "False"), ("DiskPressure", "False"), ("PIDPressure", "False"),
                  ("NetworkUnavailable", "False")], True, id="every condition False"),
    pytest.param([("Ready", "True"), ("DiskPressure", "Unknown")], False, id="a pressure condition Unknown"),
])  # fmt: skip
def test_the_node_condition_predicate_reads_only_the_conditions_a_node_has(
        client: Any, conditions: list[tuple[str, str]], valid: bool) -> None:  # fmt: skip
    """``scheduler_utils.go`` ``CheckNodeConditionPredicate`` beyond the rows of
    ``scheduler_utils_test.go`` (no Go test has these nodes; the rule is the same loop): a
    reason is added only by a condition the node has, so a node without conditions (Ready
    missing too) is valid, as is one whose pressure conditions are all ``False``; a pressure
    condition ``Unknown`` is not ``False`` and refuses the node."""
    objs = [conditions_node("n1", conditions), kai_queue("q"), *job("j", "q")]
    assert placed(decide(client, objs)) == ({"j-0": "n1"} if valid else {})


def fair_share_capacity(objects: list[dict[str, Any]]) -> list[float]:
    """The (GPUs, millicores, bytes) the kai profile's proportion plugin divides (Gangplank's
    ``KaiFairShare.capacity``)."""
    req = read_request(orjson.loads(orjson.dumps(request([*objects, kai_queue("q")]))), Settings())
    cfg = load_config({"profile": "kai", "actions": "allocate"}, known_actions=KNOWN_ACTIONS, action_aliases={},
                      known_plugins=KNOWN_PLUGINS)  # fmt: skip
    return KaiContext(Session(req.cluster, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS)).fs.capacity.tolist()


@pytest.mark.parametrize(("conditions", "unschedulable", "valid"), _state_params())
def test_the_fair_share_capacity_counts_a_node_only_when_kai_deems_it_ready(
        conditions: list[tuple[str, str]], unschedulable: bool, valid: bool) -> None:  # fmt: skip
    """``scheduler_utils_test.go`` (the row's test) through ``ValidateIsNodeReady`` in the
    proportion plugin's ``getNodeResources`` (``proportion.go:261``): a node it refuses adds
    nothing to the capacity the queues' fair shares divide. Read from Gangplank's
    ``KaiFairShare.capacity`` (an internal value: the division shows in reclaim only through
    many other rules). A valid 8-CPU, 10G node beside a Ready 2-CPU, 1G one."""
    base = node("n0", cpu="2", memory="1G", gpu=None)
    n1 = conditions_node("n1", conditions, unschedulable=unschedulable, cpu="8", memory="10G", gpu=None)
    want = [0.0, 10000.0, 11e9] if valid else [0.0, 2000.0, 1e9]
    assert fair_share_capacity([base, n1]) == want


# -- cluster_info_test.go: nodes ----------------------------------------------------------
def test_a_running_pod_holds_its_request_on_its_node(client: Any) -> None:
    """``cluster_info_test.go TestSnapshotNodes`` ("BasicUsage"): a Running pod asking for 2 CPUs
    on a node of 10 CPUs and 110 pods leaves Idle 8 CPUs. A pending pod of 8 CPUs is bound there,
    one of 9 is not. (The pod has no PodGroup: ``addTasksToNodes`` puts every pod on its node.)"""
    def objs(cpu: str) -> list[dict[str, Any]]:
        n = node("node-1", cpu="10", memory="100Gi", gpu=None)
        running = kai_pod("example", None, gpu=None, cpu="2", memory="0", node_name="node-1", phase="Running")
        return [n, running, kai_queue("q"), *job("j", "q", gpu=None, cpu=cpu)]

    assert placed(decide(client, objs("8"))) == {"j-0": "node-1"}
    assert placed(decide(client, objs("9"))) == {}


def test_a_running_pod_holds_one_of_the_nodes_pods(client: Any) -> None:
    """``cluster_info_test.go TestSnapshotNodes`` ("BasicUsage"): the node's ``pods`` allocatable,
    110, less the Running pod: Idle 109 pods. A gang of 109 pods fits, one of 110 does not."""
    def objs(n: int) -> list[dict[str, Any]]:
        nd = node("node-1", cpu="10", memory="100Gi", gpu=None, pods="110")
        running = kai_pod("example", None, gpu=None, cpu="2", memory="0", node_name="node-1", phase="Running")
        return [nd, running, kai_queue("q"), *job("j", "q", n, gpu=None, cpu="1m", memory="1Mi")]

    assert len(placed(decide(client, objs(109)))) == 109
    assert placed(decide(client, objs(110))) == {}


def test_a_finished_pod_holds_nothing_on_its_node(client: Any) -> None:
    """``cluster_info_test.go TestSnapshotNodes`` ("Finished job"): a Succeeded pod (ready
    condition and all) on the node uses nothing: Idle is the node's 10 CPUs, so a pending pod of
    10 CPUs is bound there."""
    n = node("node-1", cpu="10", memory="100Gi", gpu=None)
    done = kai_pod("example", None, gpu=None, cpu="2", memory="0", node_name="node-1", phase="Succeeded")
    done["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    assert placed(decide(client, [n, done, kai_queue("q"), *job("j", "q", gpu=None, cpu="10")])) == {"j-0": "node-1"}


def mig_objects(mig: int, pod_group_of_second: str | None) -> list[dict[str, Any]]:
    """``TestSnapshotNodes`` ("MIG Job"): a node of 10 CPUs and 10 ``nvidia.com/mig-1g.5gb``, two
    Running pods each asking for 2 CPUs and 2 instances (the second naming PodGroup
    ``pod_group_of_second``), a pending pod of ``mig`` instances."""
    n = node("node-1", cpu="10", memory="100Gi", gpu=None)
    n["status"]["allocatable"]["nvidia.com/mig-1g.5gb"] = "10"
    n["status"]["capacity"] = dict(n["status"]["allocatable"])
    mig_pod = kai_pod("mig-pod", None, gpu=None, cpu="2", memory="0", node_name="node-1", phase="Running",
                      extra={"nvidia.com/mig-1g.5gb": "2"})  # fmt: skip
    with_pg = kai_pod("mig-pod-with-pg", pod_group_of_second, gpu=None, cpu="2", memory="0", node_name="node-1",
                      phase="Running", extra={"nvidia.com/mig-1g.5gb": "2"})  # fmt: skip
    return [n, mig_pod, with_pg, kai_queue("q"),
            *job("j", "q", gpu=None, cpu="1", extra={"nvidia.com/mig-1g.5gb": str(mig)})]  # fmt: skip


def test_running_mig_pods_hold_their_mig_instances_on_the_node(client: Any) -> None:
    """``cluster_info_test.go TestSnapshotNodes`` ("MIG Job"), as the row is: the second pod names
    PodGroup ``pg-1``, which does not exist. Idle is 6 CPUs and 6 instances: a pending pod of 6
    instances is bound there, one of 7 is not."""
    assert placed(decide(client, mig_objects(6, "pg-1"))) == {"j-0": "node-1"}
    assert placed(decide(client, mig_objects(7, "pg-1"))) == {}


def test_running_mig_pods_hold_their_mig_instances_without_their_podgroup(client: Any) -> None:
    """``cluster_info_test.go TestSnapshotNodes`` ("MIG Job") with the second pod's
    ``pod-group-name`` annotation left out (the row as written is the test above): Idle is 6
    CPUs and 6 ``nvidia.com/mig-1g.5gb``, so a pending pod of 6 instances is bound, one of 7 not."""
    assert placed(decide(client, mig_objects(6, None))) == {"j-0": "node-1"}
    assert placed(decide(client, mig_objects(7, None))) == {}


def test_a_node_of_another_node_pool_is_not_in_the_default_shards_snapshot(client: Any) -> None:
    """``cluster_info_test.go TestSnapshotPodsInPartition`` (and ``TestSnapshotNodes``, "Filter Pods
    by nodepool"): the shard lists only its partition's nodes (``ListNodes`` with the partition
    selector) and only the pods on them (``addTasksToNodes``). For the default shard, ``node1``
    (no node-pool label) is its node, ``node2`` (``kai.scheduler/node-pool: bar``, holding a Running
    pod of 4 GPUs, the node binpacking would pick) is not: the pending one-GPU pod goes to
    ``node1``."""
    n1 = node("node1")
    n2 = node("node2", labels={NODE_POOL: "bar"})
    pod2 = kai_pod("pod2", None, gpu=4, node_name="node2", phase="Running")
    pod2["metadata"]["labels"] = {NODE_POOL: "bar"}
    assert placed(decide(client, [n1, n2, pod2, kai_queue("q"), *job("j", "q")])) == {"j-0": "node1"}


def test_a_podgroup_of_another_node_pool_is_not_scheduled_by_the_default_shard(client: Any) -> None:
    """``cluster_info.go`` ``snapshotPodGroups`` lists PodGroups with the partition selector
    (``kubernetes_lister.go ListPodGroups``; ``TestIsPodGroupUpForScheduler``'s PodGroups carry the
    label for their pool): a PodGroup labelled ``kai.scheduler/node-pool: nodepoola`` is not the
    default shard's, and is never placed by it; the unlabelled one beside it is."""
    objs = [node("n1"), kai_queue("q"), *job("mine", "q"), *job("theirs", "q", labels={NODE_POOL: "nodepoola"})]
    assert placed_jobs(decide(client, objs)) == {"mine"}


# -- cluster_info_test.go, queue_test.go: queues ------------------------------------------
def test_only_leaf_queues_of_the_snapshot_schedule_jobs(client: Any) -> None:
    """``cluster_info_test.go TestSnapshotQueues``: ``queue0`` under ``department0``; after
    ``UpdateQueueHierarchy`` ``department0``'s children are ``[queue0]`` and ``queue0`` has none.
    A job in ``queue0`` (a leaf) is placed; one in ``department0`` (not a leaf) is skipped by
    ``InitializeWithJobs`` (``input_jobs.go:61-64``)."""
    objs = [node("n1"), kai_queue("department0", gpu_quota=4), kai_queue("queue0", parent="department0", gpu_quota=2),
            *job("in-queue", "queue0"), *job("in-department", "department0")]  # fmt: skip
    assert placed_jobs(decide(client, objs)) == {"in-queue"}


def test_a_queue_of_another_node_pool_is_not_in_the_default_shards_snapshot(client: Any) -> None:
    """``cluster_info_test.go TestSnapshotQueues``: ``department0-a``, labelled
    ``kai.scheduler/node-pool: nodepool-a``, is not listed by the default shard (the snapshot has 2
    queues of the 3), so a job in it has no queue and is skipped (``input_jobs.go:47-51``), while a
    job in ``queue0`` is placed."""
    objs = [node("n1"), kai_queue("department0", gpu_quota=4),
            kai_queue("department0-a", labels={NODE_POOL: "nodepool-a"}, gpu_quota=2),
            kai_queue("queue0", parent="department0", gpu_quota=2),
            *job("in-queue", "queue0"), *job("in-pool-a", "department0-a")]  # fmt: skip
    assert placed_jobs(decide(client, objs)) == {"in-queue"}


def test_the_queue_hierarchy_links_children_and_drops_orphans(client: Any) -> None:
    """``queue_test.go TestUpdateQueueHierarchySetChildQueues``: ``dep1`` -> ``queue1``, ``dep2`` ->
    ``queue2``, ``queue3``; ``dep3`` has no child (a leaf: ``IsLeafQueue`` is no children);
    ``orphan``'s parent ``unexisting`` does not exist, so ``cleanQueueOrphans`` deletes it (6
    queues left). One job per queue on nodes with room for all: the jobs of ``queue1``,
    ``queue2``, ``queue3`` and ``dep3`` are placed; those of ``dep1``, ``dep2`` (not leaves) and
    ``orphan`` (no queue) are not."""
    queues = [kai_queue("dep1"), kai_queue("queue1", parent="dep1"), kai_queue("dep2"),
              kai_queue("queue2", parent="dep2"), kai_queue("queue3", parent="dep2"), kai_queue("dep3"),
              kai_queue("orphan", parent="unexisting")]  # fmt: skip
    jobs = [o for q in queues for o in job(f"in-{q['metadata']['name']}", q["metadata"]["name"])]
    nodes = [node("n1", gpu=8), node("n2", gpu=8)]
    assert placed_jobs(decide(client, [*nodes, *queues, *jobs])) == {"in-queue1", "in-queue2", "in-queue3", "in-dep3"}


@pytest.mark.parametrize("other_top_queue", [False, True], ids=["alone", "beside another top queue"])
def test_the_children_of_an_orphan_queue_are_dropped_with_it(client: Any, other_top_queue: bool) -> None:
    """``queue.go`` ``cleanQueueOrphans`` / ``deleteQueueAndChildren``, which
    ``TestUpdateQueueHierarchySetChildQueues`` runs on an orphan without children: an orphan's
    children go with it (in Go's map order the child is deleted either with its parent or, seen
    after it, as an orphan itself). A job of ``orphan-child`` (parent ``orphan``, whose parent
    ``unexisting`` does not exist) is never placed; with ``dep3`` beside it, ``dep3``'s job is."""
    queues = [kai_queue("orphan", parent="unexisting"), kai_queue("orphan-child", parent="orphan")]
    jobs = job("in-orphan-child", "orphan-child")
    if other_top_queue:
        queues.append(kai_queue("dep3"))
        jobs += job("in-dep3", "dep3")
    want = {"in-dep3"} if other_top_queue else set()
    out = decide(client, [node("n1"), *queues, *jobs])
    assert placed_jobs(out) == want
    assert any("queue 'orphan' has parent 'unexisting'" in w and "'orphan-child'" in w for w in out["warnings"])


@pytest.mark.parametrize("go", ["TestSnapshotPodGroups_QueueDoesNotExist_AddsJobFitError",
                                "TestSnapshotPodGroups/NotExistingQueue"])  # fmt: skip
def test_a_podgroup_of_a_missing_queue_is_kept_unscheduled_and_the_rest_is_scheduled(client: Any, go: str) -> None:
    """``cluster_info_test.go TestSnapshotPodGroups_QueueDoesNotExist_AddsJobFitError`` and
    ``TestSnapshotPodGroups`` ("NotExistingQueue"): ``snapshotPodGroups`` keeps a PodGroup whose
    ``spec.queue`` names no queue (``validatePodgroupQueue`` adds a ``QueueDoesNotExist`` job fit
    error, ``cluster_info.go:385``); allocate's ``InitializeWithJobs`` skips a job whose queue the
    session lacks (``input_jobs.go:47-51``). So the job of ``queue-0`` is placed and the one of
    ``nonexistent-queue`` is not."""
    objs = [node("n1"), kai_queue("queue-0"), *job("ok", "queue-0"), *job("podGroup-missing-queue", "nonexistent-queue")]
    out = decide(client, objs)
    assert placed_jobs(out) == {"ok"}
    assert any(w.startswith("queue 'nonexistent-queue' is not in the snapshot") for w in out["warnings"])


# -- cluster_info_test.go: PodGroups and their pod sets -----------------------------------
def pod_sets(objects: list[dict[str, Any]], key: str) -> dict[str, tuple[int, int]]:
    """The job's pod sets as our ingest reads them (``View``, KAI's ``GetSubGroups``): name ->
    (minimum, number of pods)."""
    cluster = read_request(orjson.loads(orjson.dumps(request(objects, config=KAI))), Settings()).cluster
    return {ps.name: (ps.min, len(ps.tasks)) for ps in View(cluster.jobs[key]).pod_sets}


def test_a_podgroup_without_sub_groups_has_the_default_pod_set_with_its_pods(client: Any) -> None:
    """``cluster_info_test.go TestSnapshotPodGroups`` ("BasicUsage"): a PodGroup of ``queue-0``
    without sub-groups and one pod naming it: one pod set ``default`` of minimum 1 holding the pod
    (read by our ingest, ``View``), and the pod is placed."""
    objs = [node("n1"), kai_queue("queue-0"), *job("podGroup-0", "queue-0", min_member=0)]
    assert pod_sets(objs, f"{NS}/podGroup-0") == {"default": (1, 1)}
    assert placed(decide(client, objs)) == {"podGroup-0-0": "n1"}


SUB_GROUPS = [{"name": "SubGroup-0", "minMember": 1}, {"name": "SubGroup-1", "minMember": 2}]


def sub_group_objects(gpus: int) -> list[dict[str, Any]]:
    """``TestSnapshotPodGroups`` ("With sub groups"): minMember 3, ``SubGroup-0`` (1) with ``pod-0``,
    ``SubGroup-1`` (2) with ``pod-1`` and ``pod-2``, each pod one GPU, one node of ``gpus`` GPUs."""
    pods = [kai_pod("pod-0", "podGroup-0", subgroup="SubGroup-0"), kai_pod("pod-1", "podGroup-0", subgroup="SubGroup-1"),
            kai_pod("pod-2", "podGroup-0", subgroup="SubGroup-1")]  # fmt: skip
    return [node("n1", gpu=gpus), kai_queue("queue-0"),
            kai_podgroup("podGroup-0", "queue-0", min_member=3, sub_groups=SUB_GROUPS), *pods]  # fmt: skip


def test_a_podgroups_sub_groups_are_its_pod_sets_with_their_pods(client: Any) -> None:
    """``cluster_info_test.go TestSnapshotPodGroups`` ("With sub groups"): the pod sets are the
    sub-groups, ``SubGroup-0`` of minimum 1 with one pod and ``SubGroup-1`` of minimum 2 with two,
    each pod in the sub-group its ``kai.scheduler/subgroup-name`` label names (read by our ingest,
    ``View``). On a node of 3 GPUs the three pods are placed."""
    assert pod_sets(sub_group_objects(3), f"{NS}/podGroup-0") == {"SubGroup-0": (1, 1), "SubGroup-1": (2, 2)}
    assert placed(decide(client, sub_group_objects(3))) == {"pod-0": "n1", "pod-1": "n1", "pod-2": "n1"}


def test_set_pod_group_gives_the_default_pod_set_the_podgroups_min_member(client: Any) -> None:
    """``cluster_info_test.go TestPodGroupWithIndexNoSubGroups``: ``SetPodGroup`` sets the
    ``default`` pod set's minimum to the PodGroup's ``minMember`` (1 before, 2 after). Read by our
    ingest (``View``), and as a gang: two one-GPU pods are placed together on a node of 2 GPUs, and
    neither on a node of 1."""
    def objs(gpus: int) -> list[dict[str, Any]]:
        return [node("n1", gpu=gpus), kai_queue("q"), *job("pg", "q", 2, min_member=2)]

    assert pod_sets(objs(2), f"{NS}/pg") == {"default": (2, 2)}
    assert placed(decide(client, objs(2))) == {"pg-0": "n1", "pg-1": "n1"}
    assert placed(decide(client, objs(1))) == {}


def test_set_pod_group_gives_each_sub_group_its_min_member(client: Any) -> None:
    """``cluster_info_test.go TestPodGroupWithIndexWithSubGroups``: with sub-groups ``sub-a``
    (minMember 1) and ``sub-b`` (2), the pod sets' minimums are 1 and 2 (read by our ingest,
    ``View``); the gang needs 3 pods, so on a node of 2 GPUs none of its three is placed. (The
    same structure as "With sub groups" above, under the names of this test.)"""
    objs = sub_group_objects(2)
    objs[2]["spec"]["subGroups"] = [{"name": "sub-a", "minMember": 1}, {"name": "sub-b", "minMember": 2}]
    for o, sg in zip(objs[3:], ("sub-a", "sub-b", "sub-b"), strict=True):
        o["metadata"]["labels"]["kai.scheduler/subgroup-name"] = sg
    assert pod_sets(objs, f"{NS}/podGroup-0") == {"sub-a": (1, 1), "sub-b": (2, 2)}
    assert placed(decide(client, objs)) == {}


# -- isPodGroupUpForScheduler -------------------------------------------------------------
#: (Go test / row, spec.schedulingBackoff (None: unset), the last scheduling condition's node pool
#: (None: no condition) for a PodGroup of the default pool, whether it is up for the scheduler)
BACKOFF_ROWS = [
    ("TestIsPodGroupUpForScheduler/Infinite schedulingBackoff", -1, "default", True),
    ("TestIsPodGroupUpForScheduler/Nil schedulingBackoff", None, "default", True),
    ("TestIsPodGroupUpForScheduler/No last scheduling condition", 1, None, True),
    ("TestIsPodGroupUpForScheduler/No last scheduling condition - default node pool", 1, None, True),
    ("TestIsPodGroupUpForScheduler/unassigned by condition from different node pool", 1, "different-nodepool", True),
    ("TestIsPodGroupUpForScheduler/unassigned by condition", 1, "default", False),
    ("TestIsPodGroupUpForScheduler/unassigned by condition - default node pool", 1, "different-nodepool", True),
    ("TestIsPodGroupUpForScheduler/unassigned by condition - default node pool 2", 1, "nodepoolc", True),
    ("TestIsPodGroupUpForScheduler/unassigned by condition - default node pool (its second row)", 1, "default", False),
    ("TestSnapshotPodGroups/filter unassigned pod groups - no scheduling backoff", -1, "default", True),
    ("TestSnapshotPodGroups/filter unassigned pod groups - no scheduling conditions", 1, None, True),
    ("TestSnapshotPodGroups/filter unassigned pod groups - unschedulable in different nodepool", 1, "some-node-pool", True),
    ("TestSnapshotPodGroups/filter unassigned pod groups - unassigned", 1, "default", False),
]  # fmt: skip


@pytest.mark.parametrize(("backoff", "condition_pool", "up"), [
    pytest.param(b, c, u, id=name) for name, b, c, u in BACKOFF_ROWS])  # fmt: skip
def test_a_podgroup_backed_off_in_this_node_pool_is_left_out_of_the_snapshot(
        client: Any, backoff: int | None, condition_pool: str | None, up: bool) -> None:  # fmt: skip
    """``cluster_info_test.go TestIsPodGroupUpForScheduler`` and ``TestSnapshotPodGroups`` (the
    "filter unassigned pod groups" rows), the row named by the id: ``isPodGroupUpForScheduler``
    keeps a PodGroup unless its ``spec.schedulingBackoff`` is set and not -1
    (``NoSchedulingBackoff``, also the default) and its last scheduling condition (highest
    ``transitionID``) is of the PodGroup's node pool (its ``kai.scheduler/node-pool`` label,
    ``default`` without one); ``filterUnassignedPodGroups`` drops the others from the snapshot.
    The PodGroup is of the default pool (see the module docstring for the rows of other pools);
    it is placed iff it is up."""
    spec = {} if backoff is None else {"schedulingBackoff": backoff}
    status = {"schedulingConditions": [] if condition_pool is None else [
        {"type": "UnschedulableOnNodePool", "nodePool": condition_pool, "transitionID": "0", "status": "True",
         "reason": "Unschedulable", "message": "", "lastTransitionTime": "2026-11-23T10:00:00Z"}]}  # fmt: skip
    objs = [node("n1"), kai_queue("queue-0"), *job("test-pg", "queue-0", spec=spec, status=status)]
    out = decide(client, objs)
    assert placed_jobs(out) == ({"test-pg"} if up else set())
    assert any("schedulingBackoff" in w for w in out["warnings"]) is not up


# -- priorities ---------------------------------------------------------------------------
def subject_goes_first(client: Any, subject: dict[str, Any], rival_value: int, classes: list[dict[str, Any]]) -> bool:
    """Whether the PodGroup ``subject`` (created at T1) is placed before a rival of priority
    ``rival_value`` (created at T0, so it wins a tie), both in one queue on a node of 1 GPU."""
    rival_class = priority_class("rival", rival_value)
    rival = [kai_podgroup("rival", "q", priority_class_name="rival", created=T0), kai_pod("rival-0", "rival")]
    objs = [node("n1", gpu=1), kai_queue("q"), *classes, rival_class, subject, kai_pod("subject-0", "subject")]
    got = placed_jobs(decide(client, [*objs, *rival]))
    assert len(got) == 1
    return got == {"subject"}


def effective_priority_is(client: Any, subject: dict[str, Any], value: int, classes: list[dict[str, Any]]) -> None:
    """The subject beats a rival of ``value - 1`` and loses to an older one of ``value``."""
    assert subject_goes_first(client, subject, value - 1, classes), f"priority below {value}"
    assert not subject_goes_first(client, subject, value, classes), f"priority above {value}"


def test_a_podgroup_gets_the_value_of_the_priority_class_it_names(client: Any) -> None:
    """``cluster_info_test.go TestGetPodGroupPriority``: a PodGroup naming ``my-priority`` (value
    2) has priority 2 (``getPodGroupPriority``: the class's value)."""
    subject = kai_podgroup("subject", "q", priority_class_name="my-priority")
    effective_priority_is(client, subject, 2, [priority_class("my-priority", 2)])


def test_a_podgroup_naming_a_missing_class_gets_the_default_priority(client: Any) -> None:
    """``cluster_info_test.go TestGetPodGroupPriorityNotExistingPriority``: a PodGroup naming
    ``my-priority``, which does not exist, gets the default priority, 123 in the Go test
    (``getPodGroupPriority``'s argument); here the default comes from a ``globalDefault`` class of
    value 123 (``getDefaultPriority``)."""
    subject = kai_podgroup("subject", "q", priority_class_name="my-priority")
    effective_priority_is(client, subject, 123, [priority_class("the-default", 123, default=True)])


@pytest.mark.parametrize("class_name", ["missing-class", None], ids=["names a missing class", "names no class"])
def test_the_default_priority_is_the_global_default_classs_value(client: Any, class_name: str | None) -> None:
    """``cluster_info_test.go TestGetDefaultPriority``: ``getDefaultPriority`` is the value of the
    ``globalDefault`` class, ``my-priority`` (2). A PodGroup naming a class that does not exist,
    or none (``GetPriorityClassByName("")`` fails too), gets it."""
    subject = kai_podgroup("subject", "q", priority_class_name=class_name)
    effective_priority_is(client, subject, 2, [priority_class("my-priority", 2, default=True)])


@pytest.mark.parametrize("class_name", ["missing-class", None], ids=["names a missing class", "names no class"])
def test_without_a_global_default_class_the_default_priority_is_50(client: Any, class_name: str | None) -> None:
    """``cluster_info_test.go TestGetDefaultPriorityNotExists``: with ``my-priority`` (2) not
    ``globalDefault``, the default priority is ``DefaultPodGroupPriority``, 50."""
    subject = kai_podgroup("subject", "q", priority_class_name=class_name)
    effective_priority_is(client, subject, 50, [priority_class("my-priority", 2)])


@pytest.mark.parametrize("class_name", ["missing-class", None], ids=["names a missing class", "names no class"])
def test_without_any_priority_class_the_default_priority_is_50(client: Any, class_name: str | None) -> None:
    """``cluster_info_test.go TestGetDefaultPriorityWithError`` (no PriorityClass at all, despite
    its name: the lister returns no error): the default priority is 50. (The rival's class is the
    only one in the snapshot, never ``globalDefault``.)"""
    subject = kai_podgroup("subject", "q", priority_class_name=class_name)
    effective_priority_is(client, subject, 50, [])


@pytest.mark.parametrize(("default_value", "placed_over_quota"), [(2, True), (99, True), (100, False), (200, False)])
@pytest.mark.parametrize("class_name", ["missing-class", None], ids=["names a missing class", "names no class"])
def test_the_default_priority_decides_the_podgroups_preemptibility(
        client: Any, class_name: str | None, default_value: int, placed_over_quota: bool) -> None:  # fmt: skip
    """``cluster_info.go`` ``setPodGroupPriorityAndPreemptibility`` after ``getDefaultPriority``
    (``TestGetDefaultPriority``, ``TestGetPodGroupPriorityNotExistingPriority``): a PodGroup without
    ``spec.preemptibility`` is non-preemptible when its priority, here the ``globalDefault`` class's
    value, is 100 or more (``CalculatePreemptibility``); a non-preemptible job may not go over its
    queue's quota (``capacity_policy/quota_check.go``), so in a queue of GPU quota 0 its one-GPU pod
    is placed only when the default is below 100."""
    objs = [node("n1"), kai_queue("q", gpu_quota=0), priority_class("the-default", default_value, default=True),
            kai_podgroup("subject", "q", priority_class_name=class_name), kai_pod("subject-0", "subject")]  # fmt: skip
    assert placed_jobs(decide(client, objs)) == ({"subject"} if placed_over_quota else set())


# -- pod_status_test.go -------------------------------------------------------------------
ALIVE_ROWS = [  # (Go status, ours: (status, gated), alive in KAI)
    ("Allocated", (TaskStatus.ALLOCATED, False), True), ("Pipelined", (TaskStatus.PIPELINED, False), True),
    ("Binding", (TaskStatus.BINDING, False), True), ("Bound", (TaskStatus.BOUND, False), True),
    ("Running", (TaskStatus.RUNNING, False), True), ("Pending", (TaskStatus.PENDING, False), True),
    ("Gated", (TaskStatus.PENDING, True), True), ("Succeeded", (TaskStatus.SUCCEEDED, False), False),
    ("Failed", (TaskStatus.FAILED, False), False), ("Unknown", (TaskStatus.UNKNOWN, False), False),
]  # fmt: skip


@pytest.mark.parametrize(("status", "alive"), [pytest.param(s, a, id=f"TestIsAliveStatus/{n}") for n, s, a in ALIVE_ROWS]
                         + [pytest.param(None, False, id="TestIsAliveStatus/Deleted",
                                         marks=pytest.mark.skip(reason="KAI's Deleted is a status no snapshot "
                                                                "gives (a pod gone from the API server)"))])  # fmt: skip
def test_alive_statuses_are_kais(status: tuple[TaskStatus, bool], alive: bool) -> None:
    """``pod_status_test.go TestIsAliveStatus``: alive = Allocated, Pipelined, Binding, Bound,
    Running, Pending, Gated (a gated pod is our Pending with ``Task.gated``); not Succeeded,
    Failed, Unknown. Gangplank's set (``app.kai.actions.ALIVE``, an internal value: it counts a
    job's pods for its readiness and staleness)."""
    assert (status[0] in ALIVE) is alive


def test_a_releasing_pod_is_not_alive() -> None:
    """``pod_status.go``: ``aliveStatuses`` leaves out Releasing (a terminating pod), which
    ``TestIsAliveStatus`` has no row for; Gangplank's ``ALIVE`` does too."""
    assert TaskStatus.RELEASING not in ALIVE


def _other_pod(kind: str) -> dict[str, Any]:
    """The gang's second pod in the KAI status ``kind`` (as ``NewTaskInfo`` derives it)."""
    if kind == "Running":
        return kai_pod("pg-1", "pg", node_name="n1", phase="Running")
    if kind == "Bound":  # Pending with a node
        return kai_pod("pg-1", "pg", node_name="n1", phase="Pending")
    if kind == "Releasing":  # Running, being deleted
        o = kai_pod("pg-1", "pg", node_name="n1", phase="Running")
        o["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
        return o
    if kind == "Gated":
        return kai_pod("pg-1", "pg", extra_spec={"schedulingGates": [{"name": "wait"}]})
    return kai_pod("pg-1", "pg", node_name="n1", phase=kind)  # Succeeded, Failed


@pytest.mark.parametrize(("kind", "ready"), [("Running", True), ("Bound", True), ("Gated", False), ("Succeeded", False),
                                             ("Failed", False), ("Releasing", False)])  # fmt: skip
def test_a_gang_is_ready_for_scheduling_only_with_its_minimum_of_alive_ungated_pods(
        client: Any, kind: str, ready: bool) -> None:  # fmt: skip
    """``pod_status_test.go TestIsAliveStatus`` as a decision: ``IsReadyForScheduling``
    (``subgroup_info/podset.go:114``) counts a pod set's alive pods less its gated ones against its
    minimum, and allocate takes only ready jobs (``FilterUnready``). A PodGroup of minMember 2 with
    one Pending pod and a second in status ``kind``: its Pending pod is placed iff the second is
    alive and not gated (Running, Bound; not Gated, Succeeded, Failed, nor Releasing, which is not
    in ``aliveStatuses``)."""
    objs = [node("n1"), kai_queue("q"), kai_podgroup("pg", "q", min_member=2), kai_pod("pg-0", "pg"), _other_pod(kind)]
    assert placed(decide(client, objs)) == ({"pg-0": "n1"} if ready else {})
