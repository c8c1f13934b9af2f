"""A canonical, JSON-ready view of a :class:`Cluster`.

Used to prove that the Kubernetes-object and native input forms produce the same model,
and handy when debugging ingest. Everything is sorted by stable keys.
"""

from __future__ import annotations

from typing import Any

from app.model.cluster import Cluster


def _nt(nt: Any) -> dict[str, Any] | None:
    if nt is None:
        return None
    return {"mode": nt.mode, "tier": nt.highest_tier_allowed, "tierName": nt.highest_tier_name}


def canonical(cluster: Cluster) -> dict[str, Any]:
    table = cluster.resources
    topo = cluster.topology
    return {
        "resources": list(table.names),
        "nodes": [
            {
                "name": n.name,
                "labels": dict(sorted(n.labels.items())),
                "allocatable": table.to_dict(cluster.allocatable[n.idx]),
                "used": table.to_dict(cluster.used[n.idx]),
                "unschedulable": n.unschedulable,
                "ready": n.ready,
                "taints": [dict(sorted(t.items())) for t in n.taints],
            }
            for n in cluster.nodes
        ],
        "tasks": [
            {
                "key": t.key,
                "job": t.job.key if t.job else None,
                "status": t.status.label,
                "node": cluster.nodes[t.node].name if t.node >= 0 else None,
                "priority": t.priority,
                "request": table.to_dict(t.req),
                "role": t.role,
                "subgroup": t.subgroup.uid if t.subgroup else None,
                "preemptable": t.preemptable,
                "created": t.created,
                "critical": t.critical,
            }
            for t in sorted(cluster.tasks, key=lambda t: t.key)
        ],
        "jobs": [
            {
                "key": j.key,
                "queue": j.queue,
                "priority": j.priority,
                "minAvailable": j.min_available,
                "minTaskMember": j.min_task_member,
                "networkTopology": _nt(j.network_topology),
                "tasks": [t.key for t in j.tasks],
                "subgroups": {k: [t.key for t in sg.tasks] for k, sg in j.subgroups.items()},
                "preemptable": j.preemptable,
                "created": j.created,
            }
            for j in cluster.jobs.values()
        ],
        "queues": [
            {
                "name": q.name,
                "weight": q.weight,
                "capability": q.capability,
                "deserved": q.deserved,
                "guarantee": q.guarantee,
                "reclaimable": q.reclaimable,
                "priority": q.priority,
                "parent": q.parent,
            }
            for q in cluster.queues.values()
        ],
        "topology": [
            {
                "name": topo.names[h],
                "tier": int(topo.tier[h]),
                "parent": topo.names[topo.parent[h]] if topo.parent[h] >= 0 else None,
                "leaves": [cluster.nodes[int(i)].name for i in topo.leaves[h]],
            }
            for h in sorted(range(len(topo.names)), key=lambda h: topo.names[h])
        ],
    }
