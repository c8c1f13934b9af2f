"""Engine rules without a test of their own, each on a small cluster checked by hand,
through the HTTP API (POST /v1/decisions, POST /v1/scores)."""

from __future__ import annotations

from collections import Counter

import orjson
import pytest

from tests.kube import node, pod, podgroup, queue, request, seed05_tree

ROOT = "<cluster-top-hypernode>"


def post(client, path, body):
    r = client.post(path, content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def decide(client, objects, config=None, **options):
    body = request(objects) if config is None else request(objects, config=config)
    body["options"].update(options)
    return post(client, "/v1/decisions", body)


def per_job(out):
    return dict(Counter(b["job"] for b in out["bindings"]))


def bound(out):
    return sorted(b["pod"] for b in out["bindings"])


# -- proportion: guarantee ------------------------------------------------------------------
PROPORTION = {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
              {"plugins": [{"name": "predicates"}, {"name": "proportion"}]}]}  # fmt: skip


def two_queues(guarantee: dict | None, small_pods: int = 8) -> list[dict]:
    """Two 8-GPU nodes; queue "small" (weight 1, optional guarantee) with a job of
    ``small_pods`` 2-GPU pods, queue "big" (weight 3) with a job of eight."""
    objs = [node("a", gpu=8), node("b", gpu=8), queue("small", weight=1, guarantee=guarantee), queue("big", weight=3)]
    for name, q, n in (("js", "small", small_pods), ("jb", "big", 8)):
        objs += [podgroup(name, min_member=1, queue=q), *[pod(f"{name}-{i}", group=name, gpu=2, cpu="1") for i in range(n)]]
    return objs


def test_proportion_guarantee_is_honoured_in_deserved(client):
    # 16 GPUs; queues "small" (weight 1) and "big" (weight 3) each ask for 16 (eight 2-GPU pods).
    # Without a guarantee the water-filling gives small 16·1/4 = 4, big 16·3/4 = 12 GPUs:
    # 2 and 6 pods.
    assert per_job(decide(client, two_queues(None), PROPORTION)) == {"default/js": 2, "default/jb": 6}
    # With small guaranteed 10 GPUs: realCapability(small) = 16 - 10 + 10 = 16,
    # realCapability(big) = 16 - 10 + 0 = 6. Round 1: small = max(min(4, 16, 16), 10) = 10;
    # big = max(min(12, 6, 16), 0) = 6; the remainder is 16 - 16 = 0, round 2 changes nothing.
    # Deserved 10 / 6 caps the queues at 5 and 3 two-GPU pods.
    out = decide(client, two_queues({"nvidia.com/gpu": "10"}), PROPORTION)
    assert per_job(out) == {"default/js": 5, "default/jb": 3}



def test_proportion_guarantee_is_reserved_from_the_other_queues(client):
    # small asks only 4 GPUs (two pods). Without a guarantee: small = min(16·1/4, request 4) = 4,
    # met; big = 12 (its request 16 is capped by the cluster): 2 and 6 pods, 16 GPUs used.
    assert per_job(decide(client, two_queues(None, small_pods=2), PROPORTION)) == {"default/js": 2, "default/jb": 6}
    # With small guaranteed 10: small = max(min(4, 16, 4), 10) = 10 (met: 4 <= 10);
    # big = min(12, realCapability 16 - 10 = 6) = 6. big is capped at 3 pods although small
    # uses only 4 GPUs: the guarantee's other 6 GPUs stay free for small.
    out = decide(client, two_queues({"nvidia.com/gpu": "10"}, small_pods=2), PROPORTION)
    assert per_job(out) == {"default/js": 2, "default/jb": 3}

# -- nodeorder: default weights -------------------------------------------------------------
NODEORDER = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"},
             {"name": "nodeorder"}]}]}  # fmt: skip

PREFER_Z1 = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 30, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}}]}}  # fmt: skip


def weights_cluster(with_c: bool = True) -> list[dict]:
    """a: zone z1, already 2 cpu / 4Gi used; b: zone z2, empty; c: zone z1, empty, with a
    PreferNoSchedule taint. All 4 cpu / 8Gi, no GPU. The pod asks 1 cpu / 1Gi and prefers z1
    (weight 30)."""
    objs = [node("a", cpu="4", memory="8Gi", gpu=None, labels={"zone": "z1"}),
            node("b", cpu="4", memory="8Gi", gpu=None, labels={"zone": "z2"})]  # fmt: skip
    if with_c:
        objs.append(node("c", cpu="4", memory="8Gi", gpu=None, labels={"zone": "z1"},
                         taints=[{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]))  # fmt: skip
    objs += [pod("run", ns="x", node="a", cpu="2", memory="4Gi"),
             pod("p", cpu="1", memory="1Gi", extra_spec={"affinity": PREFER_Z1})]  # fmt: skip
    return objs


def test_nodeorder_default_weights_give_the_exact_scores(client):
    # kube-scheduler's integer scores (Volcano's CalculatePluginScore: Score, NormalizeScore,
    # then × weight). After placing the pod (cpu, memory): a 3/4 and 5/8 used, b and c 1/4, 1/8.
    # least requested ×1: per resource (alloc − req)·100 // alloc, then (cpu·50 + mem·50) // 100:
    #   a (25·50 + 37·50) // 100 = 31; b, c (75·50 + 87·50) // 100 = 81
    # most requested ×0: 0
    # balanced ×1: int((1 − |f_cpu − f_mem| / 2)·100): a int(93.75) = 93; b, c 93
    # node affinity ×2: matching preferred weights a 30, b 0, c 30, normalised 100·w // max:
    #   a 100, b 0, c 100; ×2 -> 200, 0, 200
    # taint toleration ×3: intolerable PreferNoSchedule taints a 0, b 0, c 1 (the most):
    #   100 − 100·count // max -> a 100, b 100, c 0; ×3 -> 300, 300, 0
    # totals: a 31 + 93 + 200 + 300 = 624; b 81 + 93 + 300 = 474; c 81 + 93 + 200 = 374
    out = post(client, "/v1/scores", request(weights_cluster(), job="default/p", config=NODEORDER))
    got = {n: out["nodes"][n]["plugins"]["nodeorder"] for n in ("a", "b", "c")}
    assert got == pytest.approx({"a": 624.0, "b": 474.0, "c": 374.0}, abs=1e-6)
    assert {n: out["nodes"][n]["total"] for n in ("a", "b", "c")} == pytest.approx(got, abs=1e-6)


def test_nodeorder_preferred_affinity_weight_two_outweighs_least_requested(client):
    # a vs b (as above, without c): b is 50 ahead on least requested (81 vs 31), a 100 ahead
    # per unit of node-affinity weight (its normalised 100 against b's 0): a wins, 624 to 474.
    out = decide(client, weights_cluster(with_c=False), NODEORDER)
    assert out["bindings"] == [{"pod": "default/p", "node": "a", "job": "default/p"}]
    # With nodeaffinity.weight 0 the preference counts nothing: b wins (474 to 424), so the
    # affinity is what decided it.
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"},
            {"name": "nodeorder", "arguments": {"nodeaffinity.weight": 0}}]}]}  # fmt: skip
    assert decide(client, weights_cluster(with_c=False), conf)["bindings"][0]["node"] == "b"


# -- SubJobOrder ---------------------------------------------------------------------------
SUBJOB = {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
          {"plugins": [{"name": "predicates"}]}]}  # fmt: skip


def partitions(parts: list[tuple[str, int]]) -> list[dict]:
    """A job (minMember 4) of one four-pod partition per (partition-id, priority), pods named
    in the order given; two 8-cpu nodes hold only four 4-cpu pods, so only the sub-group
    placed first fits (the job is ready with it and the other finds no room)."""
    policy = [{"name": "t0", "subGroupSize": 4, "matchLabelKeys": ["volcano.sh/partition-id"],
               "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "t0"}}}]  # fmt: skip
    objs = [node("n0", cpu="8", gpu=None), node("n1", cpu="8", gpu=None),
            podgroup("job", min_member=4, sub_group_policy=policy)]  # fmt: skip
    i = 0
    for part, prio in parts:
        for _ in range(4):
            objs.append(pod(f"job-{i}", group="job", role="t0", cpu="4", memory="1Gi", priority=prio,
                            labels={"volcano.sh/partition-id": part}))  # fmt: skip
            i += 1
    return objs


def test_subjob_order_higher_priority_sub_group_first(client):
    # partition "0" (pods job-0..3, priority 0) has the lower match index, partition "1"
    # (job-4..7, priority 100) the higher priority: priority decides first.
    out = decide(client, partitions([("0", 0), ("1", 100)]), SUBJOB)
    assert bound(out) == [f"default/job-{i}" for i in range(4, 8)]


def test_subjob_order_then_lower_match_index(client):
    # equal priorities: match index 9 (job-4..7) before 10 (job-0..3), although the uid
    # ".../t0-10" sorts before ".../t0-9" as text
    out = decide(client, partitions([("10", 0), ("9", 0)]), SUBJOB)
    assert bound(out) == [f"default/job-{i}" for i in range(4, 8)]


def test_subjob_order_then_uid(client):
    # equal priorities, non-numeric partition ids (match index 0 for both): the uid decides,
    # ".../t0-a" (job-4..7) before ".../t0-b" (job-0..3)
    out = decide(client, partitions([("b", 0), ("a", 0)]), SUBJOB)
    assert bound(out) == [f"default/job-{i}" for i in range(4, 8)]


# -- KAI: parent queues' over-quota weights -------------------------------------------------
def kai_queue(name, *, weight=1, parent=None):
    spec = {"priority": 100, "resources": {"gpu": {"quota": 0, "overQuotaWeight": weight, "limit": -1},
                                           "cpu": {"quota": -1, "limit": -1}, "memory": {"quota": -1, "limit": -1}}}  # fmt: skip
    if parent:
        spec["parentQueue"] = parent
    return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": name}, "spec": spec}


def kai_single_pod_jobs(queue_name, n, gpu=1, ns="ml"):
    objs = []
    for i in range(n):
        name = f"{queue_name}-{i:02d}"
        objs.append({"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
                     "metadata": {"name": name, "namespace": ns},
                     "spec": {"minMember": 1, "queue": queue_name, "priorityClassName": "train"}})  # fmt: skip
        objs.append(pod(f"{name}-0", ns=ns, gpu=gpu, annotations={"pod-group-name": name}))
    return objs


def per_queue(out):
    return dict(Counter(b["job"].split("/")[1].rsplit("-", 1)[0] for b in out["bindings"]))


KAI = {"profile": "kai", "actions": "allocate"}


def test_kai_parent_queue_weights_split_the_over_quota_between_their_leaves(client):
    # 16 GPUs (two 8-GPU nodes). Parents p1 (over-quota weight 1) and p2 (weight 3), no quota;
    # leaf l1 under p1, l2 under p2, both weight 1, each with sixteen 1-GPU single-pod jobs.
    # Top-down fair share: p1 16·1/4 = 4, p2 16·3/4 = 12; each leaf is its parent's only
    # child: l1 4, l2 12. Fair share is not a cap at allocation, but queue order is: each step
    # takes the queue with the lower dominant share (allocated + 1)/fairShare (GPU dominates),
    # so l1's k-th pod comes at k/4 and l2's at k/12; the 16 smallest of those values are
    # l1's 1/4..4/4 and l2's 1/12..12/12: l1 4 pods, l2 12.
    objs = [node("a"), node("b"), kai_queue("p1", weight=1), kai_queue("p2", weight=3),
            kai_queue("l1", parent="p1"), kai_queue("l2", parent="p2")]  # fmt: skip
    objs += kai_single_pod_jobs("l1", 16) + kai_single_pod_jobs("l2", 16)
    assert per_queue(decide(client, objs, KAI)) == {"l1": 4, "l2": 12}
    # the same leaves without parents (equal weights) split 8 / 8: the parents' weights decided
    flat = [node("a"), node("b"), kai_queue("l1"), kai_queue("l2")]
    flat += kai_single_pod_jobs("l1", 16) + kai_single_pod_jobs("l2", 16)
    assert per_queue(decide(client, flat, KAI)) == {"l1": 8, "l2": 8}



def test_kai_queue_order_counts_what_the_head_job_asks_for_now(client):
    # As above, but each leaf has one elastic job (minMember 1) of sixteen 1-GPU pods. KAI takes
    # one task per attempt for a job at or above its minimum, and its queue order adds that
    # attempt's request (GetTasksToAllocateInitResource): the same comparisons as with
    # single-pod jobs, l1 4 pods, l2 12.
    def elastic(name, q):
        pg = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": "ml"},
              "spec": {"minMember": 1, "queue": q, "priorityClassName": "train"}}  # fmt: skip
        return [pg, *[pod(f"{name}-{i}", ns="ml", gpu=1, annotations={"pod-group-name": name}) for i in range(16)]]

    objs = [node("a"), node("b"), kai_queue("p1", weight=1), kai_queue("p2", weight=3),
            kai_queue("l1", parent="p1"), kai_queue("l2", parent="p2")]  # fmt: skip
    objs += elastic("j1", "l1") + elastic("j2", "l2")
    assert per_job(decide(client, objs, KAI)) == {"ml/j1": 4, "ml/j2": 12}

# -- seed 05: SubJob0's gradients from the cluster root -------------------------------------
def test_seed05_subjob0_gradients_from_the_cluster_root_are_the_tier1_hypernodes(client):
    # Seed 05 Example 1's tree; the job has no topology of its own (its only gradient is the
    # virtual root) and two partitions of four 4-cpu pods, each hard at tier 1. On 8-cpu nodes
    # a leaf (two nodes) holds four pods. HyperNodeGradientForSubJobFn(SubJob0,
    # ClusterTopHyperNode) = [[HyperNode0..3]]: every tier-1 HyperNode, nothing of tier 2 or 3.
    nodes = [node(f"node{i}", cpu="8", gpu=None) for i in range(8)]
    policy = [{"name": "t0", "subGroupSize": 4, "matchLabelKeys": ["volcano.sh/partition-id"],
               "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "t0"}},
               "networkTopology": {"mode": "hard", "highestTierAllowed": 1}}]  # fmt: skip
    objs = nodes + seed05_tree() + [podgroup("job", min_member=8, sub_group_policy=policy)]
    objs += [pod(f"job-t0-{i}", group="job", role="t0", cpu="4", memory="1Gi",
                 labels={"volcano.sh/partition-id": str(i // 4)}) for i in range(8)]  # fmt: skip
    out = decide(client, objs, explain=True)
    ex = out["explanation"]["jobs"]["default/job"]
    assert ex["gradients"] == [[ROOT]]
    tried = ex["subGroups"]["default/job/t0-0"]
    assert tried and all(t == {"within": ROOT, "gradients": [["s0", "s1", "s2", "s3"]]} for t in tried)
    # and the placement follows: each partition inside one leaf, the two in different leaves
    leaf = {f"node{i}": f"s{i // 2}" for i in range(8)}
    by_part: dict[int, set[str]] = {}
    for b in out["bindings"]:
        by_part.setdefault(int(b["pod"].rsplit("-", 1)[1]) // 4, set()).add(leaf[b["node"]])
    assert len(out["bindings"]) == 8
    assert all(len(leaves) == 1 for leaves in by_part.values()) and by_part[0] != by_part[1]


# -- Volcano SubJobs: which policy a pod joins (getSubJobMatchValues / getOrCreateSubJob) ----
def _subgroups(objs: list[dict]) -> dict[str, str]:
    from app.ingest.request import read_request
    from app.settings import Settings

    cluster = read_request(orjson.loads(orjson.dumps(request(objs))), Settings()).cluster
    return {t.name: (t.subgroup.uid if t.subgroup else "default") for t in cluster.tasks}


def test_subgroup_pod_missing_or_empty_match_label_tries_the_next_policy():
    policies = [{"name": "a", "subGroupSize": 1, "matchLabelKeys": ["part-a"]},
                {"name": "b", "subGroupSize": 1, "matchLabelKeys": ["part-b"]}]  # fmt: skip
    objs = [node("n0"), podgroup("job", min_member=1, sub_group_policy=policies),
            pod("p0", group="job", labels={"part-a": "1"}), pod("p1", group="job", labels={"part-b": "2"}),
            pod("p2", group="job", labels={"part-a": "", "part-b": "3"}), pod("p3", group="job")]  # fmt: skip
    assert _subgroups(objs) == {"p0": "default/job/a-1", "p1": "default/job/b-2", "p2": "default/job/b-3", "p3": "default"}


def test_subgroup_volcano_policy_without_match_label_keys_forms_no_sub_job():
    # Volcano's match values are empty for such a policy, and an empty list matches nothing
    policies = [{"name": "sel", "subGroupSize": 1, "labelSelector": {"matchLabels": {"role": "w"}}}]
    objs = [node("n0"), podgroup("job", min_member=1, sub_group_policy=policies), pod("p0", group="job", labels={"role": "w"})]
    assert _subgroups(objs) == {"p0": "default"}


def test_subgroup_id_over_128_characters_is_the_safe_encoded_fnv32a_of_the_values():
    from app.ingest.build import _subjob_id

    assert _subjob_id(["x" * 10, "y"]) == "xxxxxxxxxx-y"
    long = _subjob_id(["v" * 200])
    # FNV-1a 32 of the 200 characters, its decimal digits mapped onto rand.SafeEncodeString's alphabet
    h = 0x811C9DC5
    for b in ("v" * 200).encode():
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    assert long == "".join("bcdfghjklmnpqrstvwxz2456789"[ord(c) % 27] for c in str(h)) and len(long) <= 10


def test_worksheet_required_sub_groups_first_then_subjob_order():
    # organizeJobWorksheet: minSubGroups 1 is met by the ready sub-group "0" (2 running of 2),
    # so nothing is required and every sub-group with pending pods goes in SubJobOrder (here
    # the match index: gang's not-ready-first order is switched off): "0" (an extra pending
    # pod), "1", "2". With minSubGroups 2, the first waiting sub-group ("1") is required and
    # goes first.
    from app.actions.allocate import Allocate
    from app.framework.session import Session
    from app.ingest.request import read_request
    from app.plugins import PLUGINS
    from app.service import scheduler_config
    from app.settings import Settings

    def order(min_sub_groups: int) -> list[str]:
        policy = [{"name": "w", "subGroupSize": 2, "minSubGroups": min_sub_groups, "matchLabelKeys": ["part"]}]
        objs = [node("n0"), node("n1"), podgroup("job", min_member=2, sub_group_policy=policy)]
        objs += [pod(f"r{i}", group="job", node="n0", phase="Running", labels={"part": "0"}) for i in range(2)]
        objs += [pod("e0", group="job", labels={"part": "0"})]
        objs += [pod(f"p{i}{j}", group="job", labels={"part": str(i)}) for i in (1, 2) for j in range(2)]
        cluster = read_request(orjson.loads(orjson.dumps(request(objs))), Settings()).cluster
        conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang", "enabledSubJobOrder": False}]}]}
        ssn = Session(cluster, scheduler_config(conf), PLUGINS)
        sheet = Allocate({}).worksheet(ssn, cluster.jobs["default/job"])
        return [sg.uid.rsplit("/", 1)[1] for sg, _ in sheet if sg is not None]

    assert order(1) == ["w-0", "w-1", "w-2"]
    assert order(2) == ["w-1", "w-0", "w-2"]


# -- Volcano's legacy preempt: BestEffort preemptors ---------------------------------------
def test_besteffort_preemptor_evicts_only_besteffort_pods():
    # one pod slot on the node: a BestEffort high-priority pod takes it from the BestEffort
    # low-priority pod, never from a pod with requests (Volcano's filter, issue #3335)
    from app.ingest.request import read_request
    from app.service import decide_request
    from app.settings import Settings
    from tests.kube import priority_class

    def besteffort(p: dict) -> dict:
        p["spec"]["containers"][0]["resources"] = {}
        return p

    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
             {"plugins": [{"name": "predicates"}]}]  # fmt: skip
    conf = {"actions": "allocate, preempt", "tiers": tiers}
    for victim_is_besteffort, expected in ((True, ["default/low"]), (False, [])):
        low = pod("low", node="n0", phase="Running", priority=1)
        objs = [node("n0", pods="1"), priority_class("high", 1000), besteffort(low) if victim_is_besteffort else low,
                besteffort(pod("high", priority_class="high"))]  # fmt: skip
        out = decide_request(read_request(orjson.loads(orjson.dumps(request(objs, config=conf))), Settings())).wire()
        assert [e["pod"] for e in out["evictions"]] == expected, victim_is_besteffort
