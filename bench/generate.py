"""Seeded generators of realistic AI-cluster snapshots, in the native form.

Nodes have 8 GPUs, 190 CPUs, 2000Gi and 110 pod slots, under a 3-tier HyperNode tree
(``nodes_per_leaf`` nodes per tier-1 leaf, ``leaves_per_spine`` leaves per tier-2 spine,
``spines_per_super`` spines per tier-3 super-spine). Running work: training gangs of 1-256
whole-node workers (8 GPUs) plus a launcher, fractional inference pods (production ones
non-preemptible at priority 10000, batch ones preemptible at 100), and system pods
padding every node to ``pods_per_node``. Queues ``training``, ``inference`` and
``batch`` have deserved shares.

``layout="contiguous"`` puts each gang on consecutive nodes; ``"fragmented"`` scatters
gangs and inference pods across the tree. ``free_nodes`` leaves that many nodes of the
first spine with system pods only (the allocate case).
"""

from __future__ import annotations

import random
from typing import Any

SIZES = {"S": (1000, 10_000), "M": (5000, 50_000), "L": (10_000, 100_000)}
NODE_ALLOC = {"cpu": "190", "memory": "2000Gi", "nvidia.com/gpu": 8, "pods": 110}
GANG_POD = {"cpu": "96", "memory": "1500Gi", "nvidia.com/gpu": 8}


def generate(
    n_nodes: int,
    n_pods: int,
    *,
    seed: int = 3,
    nodes_per_leaf: int = 32,
    leaves_per_spine: int = 128,
    spines_per_super: int = 4,
    layout: str = "contiguous",
    free_nodes: int = 0,
    pending_gang: int = 0,
    gang_tier: int | None = 2,
    gang_priority: int = 5000,
    gang_sizes: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256),
) -> dict[str, Any]:
    rnd = random.Random(seed)
    names = [f"node-{i:05d}" for i in range(n_nodes)]
    leaf_of = [i // nodes_per_leaf for i in range(n_nodes)]
    spine_of = [leaf // leaves_per_spine for leaf in leaf_of]
    nodes = [
        {"name": n, "labels": {"kubernetes.io/hostname": n, "gpu.product": "H100"}, "allocatable": NODE_ALLOC}
        for n in names
    ]
    hyper = []
    n_leaves = leaf_of[-1] + 1
    n_spines = spine_of[-1] + 1
    for leaf in range(n_leaves):
        members = [{"exactMatch": names[i]} for i in range(leaf * nodes_per_leaf, min((leaf + 1) * nodes_per_leaf, n_nodes))]
        hyper.append({"name": f"leaf-{leaf:04d}", "tier": 1, "tierName": "leaf", "members": members})
    for sp in range(n_spines):
        kids = range(sp * leaves_per_spine, min((sp + 1) * leaves_per_spine, n_leaves))
        hyper.append({"name": f"spine-{sp:03d}", "tier": 2, "tierName": "spine",
                      "members": [{"type": "HyperNode", "exactMatch": f"leaf-{k:04d}"} for k in kids]})  # fmt: skip
    for su in range((n_spines + spines_per_super - 1) // spines_per_super):
        kids = range(su * spines_per_super, min((su + 1) * spines_per_super, n_spines))
        hyper.append({"name": f"super-{su:02d}", "tier": 3, "tierName": "superspine",
                      "members": [{"type": "HyperNode", "exactMatch": f"spine-{k:03d}"} for k in kids]})  # fmt: skip
    pods: list[dict[str, Any]] = []
    groups: list[dict[str, Any]] = []
    gpu_free = [8] * n_nodes
    reserved = set(range(free_nodes))  # the first nodes of spine 0 stay free of GPU work
    order = [i for i in range(n_nodes) if i not in reserved]
    if layout == "fragmented":
        rnd.shuffle(order)
    cursor = 0
    budget = n_pods - n_nodes * 6  # leave room for system pods
    g = 0
    while cursor < len(order) and len(pods) < budget * 0.6:
        size = min(rnd.choice(gang_sizes), len(order) - cursor)
        prio = rnd.choice([100, 500, 1000])
        gname = f"train-{g:04d}"
        groups.append({"name": gname, "namespace": "training", "minMember": size + 1, "queue": "training",
                       "priority": prio, "createdAt": "2026-11-20T00:00:00Z"})  # fmt: skip
        for w in range(size):
            n = order[cursor + w]
            gpu_free[n] = 0
            pods.append({"name": f"{gname}-worker-{w}", "namespace": "training", "node": names[n], "phase": "Running",
                         "priority": prio, "group": gname, "role": "worker", "requests": GANG_POD,
                         "createdAt": "2026-11-20T00:00:00Z"})  # fmt: skip
        pods.append({"name": f"{gname}-launcher", "namespace": "training", "node": names[order[cursor]], "phase": "Running",
                     "priority": prio, "group": gname, "role": "launcher", "requests": {"cpu": "2", "memory": "8Gi"},
                     "createdAt": "2026-11-20T00:00:00Z"})  # fmt: skip
        cursor += size
        g += 1
    inf = 0
    for n in order[cursor:]:
        while gpu_free[n] > 0 and len(pods) < budget:
            k = min(rnd.choice([1, 2, 4, 8]), gpu_free[n])
            prod = rnd.random() < 0.4
            pods.append({"name": f"inf-{inf:05d}", "namespace": "inference", "node": names[n], "phase": "Running",
                         "priority": 10000 if prod else 100, "preemptable": not prod,
                         "queue": "inference" if prod else "batch",
                         "requests": {"cpu": str(4 * k), "memory": f"{32 * k}Gi", "nvidia.com/gpu": k},
                         "createdAt": "2026-11-21T00:00:00Z"})  # fmt: skip
            gpu_free[n] -= k
            inf += 1
    per_node = max(1, (n_pods - len(pods)) // n_nodes)
    s = 0
    for i, n in enumerate(names):
        for _ in range(per_node):
            pods.append({"name": f"sys-{s:06d}", "namespace": "kube-system", "node": n, "phase": "Running",
                         "priority": 2_000_000_000, "requests": {"cpu": "100m", "memory": "128Mi"},
                         "createdAt": "2026-11-01T00:00:00Z"})  # fmt: skip
            s += 1
    if pending_gang:
        nt = {"mode": "hard", "highestTierAllowed": gang_tier} if gang_tier else None
        groups.append({"name": "llm", "namespace": "research", "minMember": pending_gang, "queue": "training",
                       "priority": gang_priority, "networkTopology": nt, "createdAt": "2026-11-23T11:00:00Z"})  # fmt: skip
        for i in range(pending_gang):
            pods.append({"name": f"llm-{i:05d}", "namespace": "research", "priority": gang_priority, "group": "llm",
                         "role": "worker", "requests": GANG_POD, "createdAt": "2026-11-23T11:00:00Z"})  # fmt: skip
    queues = [
        {"name": "training", "weight": 6, "deserved": {"nvidia.com/gpu": str(int(n_nodes * 8 * 0.6))}},
        {"name": "inference", "weight": 3, "deserved": {"nvidia.com/gpu": str(int(n_nodes * 8 * 0.3))}},
        {"name": "batch", "weight": 1, "deserved": {"nvidia.com/gpu": str(int(n_nodes * 8 * 0.1))}},
    ]
    return {"cluster": {"nodes": nodes, "hyperNodes": hyper, "queues": queues, "groups": groups, "pods": pods},
            "options": {"now": "2026-11-23T12:00:00Z"}}  # fmt: skip
