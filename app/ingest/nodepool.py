"""KAI's node-pool partition, as the ``kai`` profile's scheduler sees the snapshot.

KAI's scheduler lists Nodes, Queues and PodGroups with the selector of its node pool
(``SchedulingNodePoolParams.GetLabelSelector``, pkg/scheduler/conf/scheduler_conf.go): with the
default ``--nodepool-label-key`` (``kai.scheduler/node-pool``) and no ``--partition-label-value``
(the default shard's), the selector is "the label is absent" (``selection.DoesNotExist``), so an
object labelled with a node pool, whatever the value, belongs to another shard and is not in the
snapshot (``kubernetes_lister.go`` ``ListNodes`` / ``ListQueues`` / ``ListPodGroups``). Pods are
all listed: one on a node of another pool is on no node the scheduler has (left out), one of a
PodGroup of another pool is in no job (``Cluster.absent_groups``). The pod-grouper copies a pod's
node-pool label to the PodGroup it makes (``addNodePoolLabel``, ``kaigrouper.Grouper.labels``).
"""

from __future__ import annotations

from app.ingest.draft import Draft
from app.ingest.kube import KAI_NODE_POOL_LABEL


def default_shard(d: Draft) -> None:
    """Leave out of ``d`` the Nodes, KAI Queues and KAI PodGroups labelled with a node pool,
    naming them in the answer's notes; the PodGroups so left out are remembered
    (``Draft.partitioned``) so their pods' job is named once, here."""
    nodes = sorted(n.name for n in d.nodes if KAI_NODE_POOL_LABEL in n.labels)
    queues = sorted(q.name for q in d.queues if q.kai_node_pool)
    groups = sorted(f"{g.namespace}/{g.name}" for g in d.groups if g.source == "kai" and g.kai_node_pool)
    if not (nodes or queues or groups):
        return
    if nodes:
        d.nodes = [n for n in d.nodes if KAI_NODE_POOL_LABEL not in n.labels]
        d.pool_nodes.update(nodes)
    if queues:
        d.queues = [q for q in d.queues if not q.kai_node_pool]
    if groups:
        d.groups = [g for g in d.groups if not (g.source == "kai" and g.kai_node_pool)]
        d.partitioned.update(groups)
    parts = [f"{len(xs)} {kind}(s) (e.g. {xs[0]})" for kind, xs in (("Node", nodes), ("Queue", queues), ("PodGroup", groups)) if xs]
    d.notes.append(f"{', '.join(parts)} are labelled {KAI_NODE_POOL_LABEL}: KAI's default shard (the kai profile) does not "
                   "see them (its node-pool selector is that the label is absent), so their pods are in no job and "
                   "those on such nodes are left out")  # fmt: skip
