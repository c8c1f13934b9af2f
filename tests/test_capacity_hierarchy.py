"""QueueOrder of hierarchical capacity, through POST /v1/decisions.

Volcano's capacity plugin with ``enableHierarchy: true`` registers its own QueueOrderFn
(``buildHierarchicalQueueAttrs`` in pkg/scheduler/plugins/capacity/capacity.go):

1. the queue with the higher ``priority`` (the queue's own, not its parent's) first;
2. leaf queues before parent queues; two parents compare their own shares;
3. two leaves compare the ancestors just below their deepest common ancestor
   (``getQueueLevel``); a leaf sitting right under that ancestor stands for itself. So
   siblings compare their own shares, cousins their branches;
4. ``compareShareWithDeserved``: lower share first, and on equal shares the queue that has a
   deserved first. Nothing more: a tie goes to the session (creation time, then name).

Share is ``max allocated/deserved`` over the resources the deserved names; a parent's
allocated is its subtree's; deserved is ``max(spec.deserved, guarantee)``, not capped by the
real capability; a queue whose deserved is empty is best-effort (share 1). A parent's share
is the one from session open: Volcano's event handlers add to the ancestors' allocated but
refresh only the leaf's share.

Every cluster is one node whose GPUs are all taken but one (unless said otherwise), and two
pending one-GPU jobs, one per leaf queue, so the queue served first is the one bound.
Queues have no creation time here, so the session's own tie-break is the name.
"""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, podgroup, queue, request

GPU = "nvidia.com/gpu"


def gpus(n: int) -> dict:
    return {GPU: str(n)}


def config(hierarchy: bool) -> dict:
    cap = {"name": "capacity", "enableHierarchy": hierarchy}
    return {"actions": "allocate",
            "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}, cap]},
                      {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]}  # fmt: skip


def decide(client, objects, hierarchy: bool) -> dict:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=config(hierarchy))),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def running(name: str, q: str, gpu: int | None = 1, cpu: str = "1") -> list[dict]:
    return [podgroup(name, queue=q, phase="Running"), pod(f"{name}-0", node="n0", gpu=gpu, cpu=cpu, group=name)]


def pending(name: str, q: str) -> list[dict]:
    return [podgroup(name, queue=q), pod(f"{name}-0", gpu=1, group=name)]


def bound_jobs(out: dict) -> list[str]:
    return sorted(b["job"].removeprefix("default/") for b in out["bindings"])


def two_branches(**extra) -> list[dict]:
    """root → {a → {a1, a2}, b → {b1}} on 4 GPUs. a2 runs 2 GPUs, b1 runs 1; a1 and b1 each want 1.
    Leaves: a1 = 0/2 = 0 < b1 = 1/2 = 0.5. Parents: a = 2/4 = 0.5 > b = 1/4 = 0.25."""
    pa, pa1 = extra.get("a_priority"), extra.get("a1_priority")
    objs = [node("n0", gpu=4),
            queue("a", deserved=gpus(4), priority=pa), queue("a1", parent="a", deserved=gpus(2), priority=pa1),
            queue("a2", parent="a", deserved=gpus(2)),
            queue("b", deserved=gpus(4)), queue("b1", parent="b", deserved=gpus(2))]  # fmt: skip
    return objs + running("r-a2", "a2", gpu=2) + running("r-b1", "b1") + pending("a1", "a1") + pending("b1", "b1")


def test_leaves_in_different_branches_follow_their_parents_shares(client):
    assert bound_jobs(decide(client, two_branches(), True)) == ["b1"]  # b (0.25) before a (0.5)


def test_without_hierarchy_the_leaves_own_shares_decide(client):
    assert bound_jobs(decide(client, two_branches(), False)) == ["a1"]  # a1 (0) before b1


def test_the_queues_own_priority_comes_before_the_parents_shares(client):
    assert bound_jobs(decide(client, two_branches(a1_priority=10), True)) == ["a1"]
    # the parent's priority plays no part: the leaves are compared, each with its own
    assert bound_jobs(decide(client, two_branches(a_priority=10), True)) == ["b1"]


def test_sibling_leaves_compare_their_own_shares(client):
    """root → {a → {a1, a2}} on 2 GPUs: a1 runs 1 of its 2 (0.5), a2 runs none (0). Their
    common ancestor is their parent, so each stands for itself: a2 first (by name, a1)."""
    objs = [node("n0", gpu=2), queue("a", deserved=gpus(4)),
            queue("a1", parent="a", deserved=gpus(2)), queue("a2", parent="a", deserved=gpus(4))]  # fmt: skip
    objs += running("r-a1", "a1") + pending("a1", "a1") + pending("a2", "a2")
    assert bound_jobs(decide(client, objs, True)) == ["a2"]


def test_cousins_compare_the_branches_just_below_their_common_ancestor(client):
    """root → {a → {a2, x → {x1}}, z → {z1}} on 6 GPUs. x1 and z1 meet at root, so the
    entries below root decide: a = 3/4 (a2 runs 3) against z = 2/4 (z1 runs 2), z1 first,
    although x (0) and x1 (0) are both below z and z1 (0.5), and the name says x1."""
    objs = [node("n0", gpu=6),
            queue("a", deserved=gpus(4)), queue("a2", parent="a", deserved=gpus(4)),
            queue("x", parent="a", deserved=gpus(4)), queue("x1", parent="x", deserved=gpus(4)),
            queue("z", deserved=gpus(4)), queue("z1", parent="z", deserved=gpus(4))]  # fmt: skip
    objs += running("r-a2", "a2", gpu=3) + running("r-z1", "z1", gpu=2) + pending("x1", "x1") + pending("z1", "z1")
    assert bound_jobs(decide(client, objs, True)) == ["z1"]
    assert bound_jobs(decide(client, objs, False)) == ["x1"]


def test_a_leaf_beside_a_deeper_branch_is_compared_with_that_branch(client):
    """root → {a → {y1, x → {x1, x2}}} on 5 GPUs. y1 and x1 meet at a; y1's ancestors end
    there, so y1 stands for itself (1/2 = 0.5) against x (x2 runs 3: 3/4 = 0.75): y1 first,
    although x1 (0) is below y1 and the name says x1."""
    objs = [node("n0", gpu=5), queue("a", deserved=gpus(8)), queue("y1", parent="a", deserved=gpus(2)),
            queue("x", parent="a", deserved=gpus(4)), queue("x1", parent="x", deserved=gpus(4)),
            queue("x2", parent="x", deserved=gpus(4))]  # fmt: skip
    objs += running("r-y1", "y1") + running("r-x2", "x2", gpu=3) + pending("x1", "x1") + pending("y1", "y1")
    assert bound_jobs(decide(client, objs, True)) == ["y1"]
    assert bound_jobs(decide(client, objs, False)) == ["x1"]


def test_tied_parents_go_to_the_session_tie_break_not_to_the_leaves(client):
    """root → {a → {a1}, b → {b1}} on 3 GPUs. a1 runs 1 of 1 (share 1), b1 runs 1 of 4
    (0.25); a = b = 1/4. The parents tie and both have a deserved, so capacity answers 0
    and the session's name order serves a1, though b1's own share is the lower."""
    objs = [node("n0", gpu=3),
            queue("a", deserved=gpus(4)), queue("a1", parent="a", deserved=gpus(1)),
            queue("b", deserved=gpus(4)), queue("b1", parent="b", deserved=gpus(4))]  # fmt: skip
    objs += running("r-a1", "a1") + running("r-b1", "b1") + pending("a1", "a1") + pending("b1", "b1")
    assert bound_jobs(decide(client, objs, True)) == ["a1"]


def test_on_a_share_tie_the_parent_with_a_deserved_goes_first(client):
    """root → {a → {a1}, b → {b1}} on 2 GPUs. a has no deserved: best-effort, share 1.
    b deserves 1 GPU and b1 runs 1: share 1 too. Tie: b, which has a deserved, first
    (the name says a1, and a1's own share 0 is below b1's 0.5)."""
    objs = [node("n0", gpu=2),
            queue("a"), queue("a1", parent="a", deserved=gpus(2)),
            queue("b", deserved=gpus(1)), queue("b1", parent="b", deserved=gpus(2))]  # fmt: skip
    objs += running("r-b1", "b1") + pending("a1", "a1") + pending("b1", "b1")
    assert bound_jobs(decide(client, objs, True)) == ["b1"]
    assert bound_jobs(decide(client, objs, False)) == ["a1"]


def test_a_parent_with_only_a_guarantee_is_not_best_effort(client):
    """root → {z → {z1, z2}, b → {b1}} on 3 GPUs. z has no deserved but a 4-GPU guarantee,
    so it deserves 4 (max(deserved, guarantee)): z2 runs 1, share 0.25, not 1. b deserves 2,
    b1 runs 1: 0.5. z1 first (the name says b1)."""
    objs = [node("n0", gpu=3),
            queue("z", guarantee=gpus(4)), queue("z1", parent="z", deserved=gpus(2)),
            queue("z2", parent="z", deserved=gpus(2)),
            queue("b", deserved=gpus(2)), queue("b1", parent="b", deserved=gpus(2))]  # fmt: skip
    objs += running("r-z2", "z2") + running("r-b1", "b1") + pending("z1", "z1") + pending("b1", "b1")
    assert bound_jobs(decide(client, objs, True)) == ["z1"]


def test_a_parents_share_counts_only_the_resources_its_deserved_names(client):
    """root → {z → {z1, z2}, b → {b1}} on 2 GPUs. Both parents deserve GPUs only. z2 runs a
    CPU-only pod (cpu, memory and pods are not in z's deserved): z's share is 0. b1 runs 1
    GPU: b = 1/4. z1 first (the name says b1)."""
    objs = [node("n0", gpu=2),
            queue("z", deserved=gpus(4)), queue("z1", parent="z", deserved=gpus(2)),
            queue("z2", parent="z", deserved=gpus(2)),
            queue("b", deserved=gpus(4)), queue("b1", parent="b", deserved=gpus(2))]  # fmt: skip
    objs += running("r-z2", "z2", gpu=None, cpu="8") + running("r-b1", "b1") + pending("z1", "z1") + pending("b1", "b1")
    assert bound_jobs(decide(client, objs, True)) == ["z1"]


def test_a_parents_deserved_is_not_capped_by_the_cluster(client):
    """root → {a → {a1, a2}, b → {b1}} on 5 GPUs. a deserves 16 GPUs, more than the cluster
    holds; hierarchical capacity keeps 16 (no cap at the real capability): a2 runs 3, share
    3/16 ≈ 0.19, below b's 1/4, so a1 first. Capped at 5 it would be 0.6 and b1 first."""
    objs = [node("n0", gpu=5),
            queue("a", deserved=gpus(16)), queue("a1", parent="a", deserved=gpus(2)),
            queue("a2", parent="a", deserved=gpus(4)),
            queue("b", deserved=gpus(4)), queue("b1", parent="b", deserved=gpus(2))]  # fmt: skip
    objs += running("r-a2", "a2", gpu=3) + running("r-b1", "b1") + pending("a1", "a1") + pending("b1", "b1")
    assert bound_jobs(decide(client, objs, True)) == ["a1"]


def test_parent_shares_stay_at_their_session_open_values(client):
    """root → {a → {a1}, b → {b1}} on 4 free GPUs, every queue deserving 4; a1 and b1 each
    have four one-GPU jobs. a and b open at share 0 and keep it for the whole session, so
    they tie on every pop and a1 (by name) takes all four GPUs."""
    objs = [node("n0", gpu=4),
            queue("a", deserved=gpus(4)), queue("a1", parent="a", deserved=gpus(4)),
            queue("b", deserved=gpus(4)), queue("b1", parent="b", deserved=gpus(4))]  # fmt: skip
    for i in range(4):
        objs += pending(f"a1-{i}", "a1") + pending(f"b1-{i}", "b1")
    assert bound_jobs(decide(client, objs, True)) == ["a1-0", "a1-1", "a1-2", "a1-3"]


def test_leaf_shares_move_with_every_job(client):
    """root → {a → {a1, a2}} on 4 free GPUs, a1 and a2 deserving 4 each, four one-GPU jobs
    each. Siblings stand for themselves and a leaf's share is refreshed on every allocation
    (1/4 after its first job), so the two alternate, two each."""
    objs = [node("n0", gpu=4), queue("a", deserved=gpus(8)),
            queue("a1", parent="a", deserved=gpus(4)), queue("a2", parent="a", deserved=gpus(4))]  # fmt: skip
    for i in range(4):
        objs += pending(f"a1-{i}", "a1") + pending(f"a2-{i}", "a2")
    assert bound_jobs(decide(client, objs, True)) == ["a1-0", "a1-1", "a2-0", "a2-1"]


# -- hierarchical real capability (checkHierarchicalQueue) ------------------------------------
# root's real capability is its capability, or no limit when it has none (not the cluster
# total); a root capability leaves the resources it does not name at 0. A child's is, per
# resource, max(parent's real − Σ guarantees of the parent's children, 0) + its own guarantee,
# capped by its capability, which takes the parent's cpu / memory when its own is unset.
# Allocatable checks the queue and every ancestor; Preemptive only the queue itself, so an
# inherited capability shows in reclaim. The pod slot is never compared.


def gang_of(name: str, q: str, n: int, *, gpu: int | None = 1, cpu: str | None = "1", memory: str | None = None,
            created: str = "2026-11-23T09:00:00Z") -> list[dict]:  # fmt: skip
    """One pending job of n pods in queue q, minMember 1, so each pod binds on its own."""
    pods = [pod(f"{name}-{i}", gpu=gpu, cpu=cpu, memory=memory, group=name) for i in range(n)]
    return [podgroup(name, queue=q, created=created), *pods]


def bound_pods(out: dict) -> list[str]:
    return sorted(b["pod"].removeprefix("default/") for b in out["bindings"])


def test_a_siblings_guarantee_reduces_a_childs_room(client):
    """root → {a (capability 4 GPUs) → {a1, a2 (guarantee 3 GPUs)}} on 8 free GPUs. a2 holds
    nothing, but its guarantee is set aside: a1's room is 4 − 3 + 0 = 1 GPU, so one of its
    four one-GPU pods binds (the parent's 4 alone would let all four in)."""
    objs = [node("n0", gpu=8), queue("a", capability=gpus(4)), queue("a1", parent="a"),
            queue("a2", parent="a", guarantee=gpus(3))]  # fmt: skip
    objs += gang_of("j", "a1", 4)
    assert bound_pods(decide(client, objs, True)) == ["j-0"]


def test_guarantees_beyond_the_parents_room_clamp_at_zero_before_the_own_guarantee_is_added(client):
    """root → {a (capability 4 GPUs) → {a1 (guarantee 2), a2 (guarantee 3)}} on 8 free GPUs.
    The guarantees (5) exceed a's 4: a1's room is max(4 − 5, 0) + 2 = 2 GPUs (not 4 − 5 + 2 = 1,
    not 0 without its own guarantee, not a's 4)."""
    objs = [node("n0", gpu=8), queue("a", capability=gpus(4)), queue("a1", parent="a", guarantee=gpus(2)),
            queue("a2", parent="a", guarantee=gpus(3))]  # fmt: skip
    objs += gang_of("j", "a1", 4)
    assert bound_pods(decide(client, objs, True)) == ["j-0", "j-1"]


def test_guarantees_are_set_aside_per_resource(client):
    """root → {a (capability 4 CPU, 4 GPUs) → {a1, a2 (guarantee 3 GPUs)}}. a1's room is 4 CPU
    (no CPU is guaranteed) and 4 − 3 = 1 GPU: its four one-CPU pods all bind, and one of its
    four GPU-only pods."""
    objs = [node("n0", gpu=8), queue("a", capability={"cpu": "4", GPU: "4"}), queue("a1", parent="a"),
            queue("a2", parent="a", guarantee=gpus(3))]  # fmt: skip
    objs += gang_of("c", "a1", 4, gpu=None, created="2026-11-23T08:00:00Z") + gang_of("g", "a1", 4, cpu=None)
    assert bound_pods(decide(client, objs, True)) == ["c-0", "c-1", "c-2", "c-3", "g-0"]


def reclaim_config() -> dict:
    cap = {"name": "capacity", "enableHierarchy": True}
    return {"actions": "allocate, reclaim",
            "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}, cap]},
                      {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]}  # fmt: skip


def test_a_child_inherits_its_parents_cpu_capability(client):
    """root → {a (capability 4 CPU) → {a1 (guarantee 6 CPU)}, b → {b1}} on one 10-CPU node.
    b1 runs two 4-CPU pods (minMember 1), a1 wants one pod. a1's room is max(4 − 6, 0) + 6 = 6
    CPU, capped by the capability it inherits from a: 4. Preemptive compares that (a1's own
    real capability): a 4-CPU pod may reclaim (one of b1's pods goes), a 5-CPU pod may not.
    With its own capability of 6 CPU a1 inherits nothing and the 5-CPU pod reclaims too."""

    def cluster(want: str, a1_capability: dict | None = None) -> list[dict]:
        objs = [node("n0", cpu="10", gpu=None), queue("a", capability={"cpu": "4"}),
                queue("a1", parent="a", guarantee={"cpu": "6"}, capability=a1_capability),
                queue("b"), queue("b1", parent="b"),
                podgroup("r", min_member=1, queue="b1", phase="Running")]  # fmt: skip
        objs += [pod(f"r-{i}", node="n0", cpu="4", memory=None, group="r", created=f"2026-11-23T08:0{i}:00Z")
                 for i in range(2)]  # fmt: skip
        return objs + [podgroup("w", queue="a1"), pod("w-0", cpu=want, memory=None, group="w")]

    def evicted(out: dict) -> list[str]:
        return sorted(e["pod"] for e in out["evictions"])

    out = decide_with(client, cluster("4"), reclaim_config())
    assert len(evicted(out)) == 1 and [n["pod"] for n in out["nominations"]] == ["default/w-0"]
    out = decide_with(client, cluster("5"), reclaim_config())
    assert evicted(out) == [] and out["nominations"] == []
    out = decide_with(client, cluster("5", {"cpu": "6"}), reclaim_config())
    assert len(evicted(out)) == 1 and [n["pod"] for n in out["nominations"]] == ["default/w-0"]


def decide_with(client, objects: list[dict], conf: dict) -> dict:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=conf)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def test_root_without_capability_is_not_capped_by_the_cluster_total(client):
    """root → {a → {a1}}. Nothing caps the tree, not even the cluster: a PodGroup whose
    minResources (12 CPU) exceed the one 8-CPU node is admitted by capacity's enqueue vote
    (Volcano: users may submit jobs larger than the cluster; the nodes limit placement)."""
    conf = {"actions": "enqueue, allocate", "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "capacity", "enableHierarchy": True}]},
        {"plugins": [{"name": "predicates"}]}]}  # fmt: skip
    pg = podgroup("big", queue="a1", phase="Pending")
    pg["spec"]["minResources"] = {"cpu": "12"}
    objs = [node("n0", cpu="8", gpu=None), queue("a"), queue("a1", parent="a"), pg,
            pod("big-0", cpu="12", memory=None, group="big")]  # fmt: skip
    assert decide_with(client, objs, conf)["enqueued"] == ["default/big"]


def test_pods_on_a_not_ready_node_do_not_fill_root_up_to_the_ready_nodes_total(client):
    """root → {a → {a1}}. n1 is not ready but still runs a1's 4-CPU pod; n0 (ready) has 4 free
    CPU. The tree's allocated is 4 CPU, the ready nodes' total is 4: with root capped at the
    cluster total a1's 1-CPU pod would be refused; root has no limit, so it binds."""
    objs = [node("n0", cpu="4", gpu=None), node("n1", cpu="4", gpu=None, ready=False),
            queue("a"), queue("a1", parent="a"), podgroup("r", queue="a1", phase="Running"),
            pod("r-0", node="n1", cpu="4", memory=None, group="r")]  # fmt: skip
    objs += gang_of("j", "a1", 1, gpu=None)
    assert bound_pods(decide(client, objs, True)) == ["j-0"]


def test_a_root_capability_caps_the_tree_and_leaves_what_it_does_not_name_at_zero(client):
    """A root queue with capability {cpu: 64, GPU: 2}: a1's three one-GPU pods (1 CPU, no
    memory) get two GPUs. Root names no memory, so its real memory is 0 and the same pods
    asking 1Gi each are all refused, even when a names 100Gi of memory in its own capability
    (root is checked as an ancestor, and a's room is max(0 − 0, 0) + 0). An empty root
    capability would be no limit at all."""

    def cluster(memory: str | None, a_capability: dict | None = None) -> list[dict]:
        objs = [node("n0", gpu=8), queue("root", capability={"cpu": "64", GPU: "2"}),
                queue("a", capability=a_capability), queue("a1", parent="a")]  # fmt: skip
        return objs + gang_of("j", "a1", 3, memory=memory)

    assert bound_pods(decide(client, cluster(None), True)) == ["j-0", "j-1"]
    assert bound_pods(decide(client, cluster("1Gi"), True)) == []
    assert bound_pods(decide(client, cluster("1Gi", {"memory": "100Gi"}), True)) == []


@pytest.mark.parametrize("hierarchy", [True, False])
def test_the_pod_slot_is_not_a_capacity_limit(client, hierarchy):
    """a1's capability says one pod; Volcano's checks skip the pod slot (it counts pods
    apart from the resources it compares), so all three of its pods bind."""
    objs = [node("n0", gpu=8), queue("a"), queue("a1", parent="a", capability={"pods": "1"})]
    objs += gang_of("j", "a1", 3)
    assert bound_pods(decide(client, objs, hierarchy)) == ["j-0", "j-1", "j-2"]


@pytest.mark.parametrize(("queues", "why"), [
    ([queue("a", parent="ghost")], "queue 'a' has parent 'ghost', which is not a queue of the snapshot"),
    ([queue("a", parent="b"), queue("b", parent="a")], "queue 'b' has parent 'a', its own descendant (a cycle of parents)"),
    ([queue("a", parent="a")], "queue 'a' has parent 'a', itself (a cycle of parents)"),
])  # fmt: skip
def test_a_parent_that_is_missing_or_a_cycle_stops_the_plugin_for_the_session(client, queues, why):
    """capacity.go ``updateAncestors`` errs on a parent that is not a queue or a cycle;
    ``buildHierarchicalQueueAttrs`` then returns false and, ``readyToSchedule`` false, every
    capacity function refuses: nothing is allocated; ``warnings`` say why."""
    objs = [node("n0"), *queues, *pending("j", "a")]
    out = decide(client, objs, True)
    assert bound_pods(out) == []
    assert any(why in w and "readyToSchedule false" in w for w in out["warnings"]), out["warnings"]
    # without hierarchy the parent field is not read
    assert bound_pods(decide(client, objs, False)) != []


# -- hierarchical enqueue (checkJobEnqueueableHierarchically, JobEnqueued) --------------------
# A PodGroup is admitted when minResources + allocated + inqueue − elastic <= realCapability,
# on the resources its minResources asks for, for its queue and every ancestor; a queue with
# children admits nothing. An admitted PodGroup's minResources join the inqueue of its queue and
# every ancestor; at session open an Inqueue PodGroup reserves max(minResources − allocated, 0),
# and elastic is what a job holds beyond its minResources. Every cluster: one 8-CPU node,
# root → a (capability 4 CPU) → {a1, a2}, so a1 and a2 may each hold 4 CPU but not 4 together.


def enqueue_config(hierarchy: bool = True) -> dict:
    cap = {"name": "capacity", "enableHierarchy": hierarchy}
    return {"actions": "enqueue, allocate",
            "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, cap]},
                      {"plugins": [{"name": "predicates"}]}]}  # fmt: skip


def asking(name: str, q: str, cpu: str, *, phase: str = "Pending") -> list[dict]:
    """A PodGroup of one pod whose minResources are the pod's cpu."""
    pg = podgroup(name, queue=q, phase=phase)
    pg["spec"]["minResources"] = {"cpu": cpu}
    return [pg, pod(f"{name}-0", cpu=cpu, memory=None, group=name)]


def holding(name: str, q: str, pods: int, min_cpu: str | None) -> list[dict]:
    """A Running PodGroup with `pods` one-CPU pods bound on n0, minResources `min_cpu` CPU."""
    pg = podgroup(name, queue=q, phase="Running")
    if min_cpu is not None:
        pg["spec"]["minResources"] = {"cpu": min_cpu}
    return [pg, *(pod(f"{name}-{i}", node="n0", cpu="1", memory=None, group=name) for i in range(pods))]


def tree() -> list[dict]:
    return [node("n0", cpu="8", gpu=None), queue("a", capability={"cpu": "4"}),
            queue("a1", parent="a"), queue("a2", parent="a")]  # fmt: skip


def admitted(client, objects: list[dict], hierarchy: bool = True) -> list[str]:
    return [k.removeprefix("default/") for k in decide_with(client, objects, enqueue_config(hierarchy))["enqueued"]]


def test_enqueue_checks_the_parents_capability_too(client):
    """a1 runs a PodGroup holding its minimum, 3 CPU. y (a2) asking 2 CPU fits a2 (2 <= 4) but
    not a (2 + 3 > 4): not admitted. Asking 1 CPU it fits both (1 + 3 <= 4)."""
    objs = tree() + holding("r", "a1", 3, "3")
    assert admitted(client, objs + asking("y", "a2", "2")) == []
    assert admitted(client, objs + asking("y", "a2", "1")) == ["y"]


def test_an_admitted_podgroups_minimum_counts_against_the_parent_for_the_next_vote(client):
    """x (a1) and y (a2) ask 3 CPU each: each alone is admitted, but once x is, a holds 3 in
    queue and y's 3 + 3 > 4. The same when x was admitted in an earlier cycle (phase Inqueue,
    its pod not yet bound): its minimum is in a's inqueue from session open."""
    assert admitted(client, tree() + asking("x", "a1", "3")) == ["x"]
    assert admitted(client, tree() + asking("y", "a2", "3")) == ["y"]
    assert admitted(client, tree() + asking("x", "a1", "3") + asking("y", "a2", "3")) == ["x"]
    assert admitted(client, tree() + asking("x", "a1", "3", phase="Inqueue") + asking("y", "a2", "3")) == []


def test_a_podgroup_in_a_queue_with_children_is_not_admitted(client):
    """p asks 1 CPU, well within every capability: in a (which has children) it is not
    admitted; in the leaf a1 it is."""
    assert admitted(client, tree() + asking("p", "a", "1")) == []
    assert admitted(client, tree() + asking("p", "a1", "1")) == ["p"]


def test_what_a_running_job_holds_beyond_its_minimum_does_not_count_at_enqueue(client):
    """r (a1) holds 3 CPU with minResources 1 CPU: 2 CPU are elastic, subtracted at a1 and at
    a. y (a2) asking 3 CPU: 3 + 3 − 2 <= 4 at a, admitted; with r's minimum at 3 CPU nothing of
    r is elastic (3 + 3 > 4); a PodGroup without minResources is elastic in full."""
    assert admitted(client, tree() + holding("r", "a1", 3, "1") + asking("y", "a2", "3")) == ["y"]
    assert admitted(client, tree() + holding("r", "a1", 3, "3") + asking("y", "a2", "3")) == []
    assert admitted(client, tree() + holding("r", "a1", 3, None) + asking("y", "a2", "4")) == ["y"]


def test_flat_enqueue_subtracts_elastic_too(client):
    """Without hierarchy (queue q, capability 4 CPU) the same rule on the queue alone: r holds
    3 CPU with minResources 1 CPU, so y asking 3 CPU is admitted (3 + 3 − 2 <= 4); with r's
    minimum at 3 CPU it is not."""
    objs = [node("n0", cpu="8", gpu=None), queue("q", capability={"cpu": "4"})]
    assert admitted(client, objs + holding("r", "q", 3, "1") + asking("y", "q", "3"), False) == ["y"]
    assert admitted(client, objs + holding("r", "q", 3, "3") + asking("y", "q", "3"), False) == []


@pytest.mark.parametrize("hierarchy", [True, False])
def test_a_closed_queue_admits_nothing(client, hierarchy):
    q = queue("a1", parent="a")
    q.setdefault("status", {})["state"] = "Closed"
    objs = [node("n0", cpu="8", gpu=None), queue("a"), q, *asking("p", "a1", "1")]
    assert admitted(client, objs, hierarchy) == []


@pytest.mark.parametrize("phase", ["Inqueue", "Running"])
def test_a_partly_placed_podgroup_reserves_the_rest_of_its_minimum(client, phase):
    """x (a1, minResources 3 CPU, minMember 1) has one 1-CPU pod bound: 1 CPU allocated and
    3 − 1 = 2 in queue, at a1 and at a. y (a2) asking 2 CPU: 2 + 1 + 2 > 4, not admitted;
    asking 1 CPU it is. A Running PodGroup reserves only once its bound pods reach minMember:
    with minMember 2 nothing is in queue (2 + 1 <= 4)."""

    def cluster(want: str, min_member: int = 1) -> list[dict]:
        pg = podgroup("x", queue="a1", phase=phase, min_member=min_member)
        pg["spec"]["minResources"] = {"cpu": "3"}
        x = [pg, pod("x-0", node="n0", cpu="1", memory=None, group="x"), pod("x-1", cpu="2", memory=None, group="x")]
        return tree() + x + asking("y", "a2", want)

    assert admitted(client, cluster("2")) == []
    assert admitted(client, cluster("1")) == ["y"]
    if phase == "Running":
        assert admitted(client, cluster("2", min_member=2)) == ["y"]
