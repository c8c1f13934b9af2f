"""KAI's node-pool partition, as the ``kai`` profile's scheduler sees the snapshot.

KAI's scheduler lists Nodes, Queues and PodGroups with the selector of its node pool
(``SchedulingNodePoolParams.GetLabelSelector``, pkg/scheduler/conf/scheduler_conf.go): with the
default ``--nodepool-label-key`` (``kai.scheduler/node-pool``) and no ``--partition-label-value``
(the default shard's), the selector is "the label is absent" (``selection.DoesNotExist``), so an
object labelled with a node pool, whatever the value, belongs to another shard and is not in the
snapshot (``kubernetes_lister.go`` ``ListNodes`` / ``ListQueues`` / ``ListPodGroups``); a shard
of a node pool (the profile's ``partitionLabelValue``) lists only the objects labelled with it
(``selection.Equals``). Pods are
all listed: one on a node of another pool is on no node the scheduler has (left out), one of a
PodGroup of another pool is in no job (``Cluster.absent_groups``). The pod-grouper copies a pod's
node-pool label to the PodGroup it makes (``addNodePoolLabel``, ``kaigrouper.Grouper.labels``);
the PodGroup of one it makes for a pod on its own has the pod's labels, so such a pod of another
pool is in no job either (held as a pod of another scheduler).
"""

from __future__ import annotations

from app.ingest.draft import Draft
from app.kai.jobs import KAI_SCHEDULER_NAME, KAI_UNGROUPED


def shard_view(d: Draft, pool: str = "") -> None:
    """Leave out of ``d`` the Nodes, KAI Queues and KAI PodGroups another shard lists than the
    one of node pool ``pool`` ("" the default shard: those labelled with any node pool; else
    those not labelled with ``pool``), naming them in the answer's notes; the PodGroups so
    left out are remembered (``Draft.partitioned``) so their pods' job is named once, here.
    The label is ``Draft.kai_pool_key`` (``--nodepool-label-key``); an empty key selects every
    object (``GetLabelSelector``: ``labels.Everything``)."""
    key = d.kai_pool_key
    if not key:
        return

    def other(value: str | None) -> bool:
        return value is not None if not pool else value != pool

    nodes = sorted(n.name for n in d.nodes if other(n.labels.get(key)))
    queues = sorted(q.name for q in d.queues if q.source == "kai" and other(q.kai_node_pool))
    groups = sorted(f"{g.namespace}/{g.name}" for g in d.groups if g.source == "kai" and other(g.kai_node_pool))
    # a kai-scheduler pod on its own: its PodGroup of one (podjob grouper) has the pod's labels
    bare = [p for p in d.pods if p.group is None and p.scheduler == KAI_SCHEDULER_NAME and other(p.labels.get(key))
            and p.pointer.startswith("/objects/")]  # fmt: skip
    for p in bare:  # (in no job: held as a pod of another scheduler)
        p.scheduler, p.kai_pod, p.kai_class, p.kai_preemptibility = KAI_UNGROUPED, False, "", ""
    alone = sorted(f"{p.namespace}/{p.name}" for p in bare)
    if not (nodes or queues or groups or alone):
        return
    if nodes:
        gone = set(nodes)
        d.nodes = [n for n in d.nodes if n.name not in gone]
        d.pool_nodes.update(nodes)
    if queues:
        gone = set(queues)
        d.queues = [q for q in d.queues if not (q.source == "kai" and q.name in gone)]
    if groups:
        gone = set(groups)
        d.groups = [g for g in d.groups if not (g.source == "kai" and f"{g.namespace}/{g.name}" in gone)]
        d.partitioned.update(groups)
    parts = [f"{len(xs)} {kind} (e.g. {xs[0]})" for kind, xs in (
        ("Node(s)", nodes), ("Queue(s)", queues), ("PodGroup(s)", groups),
        ("kai-scheduler pod(s) on their own (the PodGroup of one KAI's pod-grouper makes has their labels)", alone)) if xs]
    shard = ("KAI's default shard (the kai profile) does not see them (its node-pool selector is that the label is absent)"
             if not pool else f"the kai profile's shard of node pool {pool!r} does not see them (its selector is "
             f"{key}={pool})")  # fmt: skip
    how = "are labelled " + key if not pool else f"are not labelled {key}={pool}"
    d.notes.append(f"{', '.join(parts)} {how}: {shard}, so their pods are in no job and those on such nodes are left "
                   "out")  # fmt: skip
