"""Hierarchical DRF: Volcano's ``drf`` plugin with ``enableHierarchy: true`` (``app/plugins/hdrf.py``).

Transcribed: ``pkg/scheduler/plugins/drf/hdrf_test.go`` ``TestHDRF`` (volcano-sh/volcano at
ed72c7c), both cases, as its table states the expected allocations. The Go test's own
assertion cannot fail (it fails only when the whole expected map equals one job's
allocation), so the table's numbers are checked here against the rules in ``drf.go``,
worked out by hand in each test's docstring. The Go test opens its session with
``OpenSession`` on hand-made tiers, where an unset flag is off (``isEnabled``: nil is
false; only the loader's ``ApplyPluginConfDefaults`` turns them on), so the configuration
here sets the flags the test leaves unset to false.

The other tests check one rule each on a cluster small enough to follow by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import node, pod, podgroup, post_decision, queue

HIER = "volcano.sh/hierarchy"
WEIGHTS = "volcano.sh/hierarchy-weights"


def hqueue(name: str, hierarchy: str, weights: str, **kw: Any) -> dict[str, Any]:
    return queue(name, annotations={HIER: hierarchy, WEIGHTS: weights}, **kw)


def pods(n: int, cpu: str, mem: str, group: str) -> list[dict[str, Any]]:
    return [pod(f"{group}-p{i}", cpu=cpu, memory=mem, group=group) for i in range(n)]


def go_test_conf() -> dict[str, Any]:
    """``TestHDRF``'s plugins: drf (hierarchy, queue order, job order) and proportion (job
    enqueued, queue order, reclaimable); every flag it leaves unset is off. Go's test builds
    them into one tier without the loader, which refuses that tier ("proportion and drf with
    hierarchy enabled conflicts"); as a config proportion goes to the next tier: drf's queue
    order still decides first, and allocate reads nothing else of proportion's here."""
    off = {"enablePreemptable": False}
    return {"actions": "allocate", "tiers": [{"plugins": [
        {"name": "drf", "enableHierarchy": True, "enableQueueOrder": True, "enableJobOrder": True, **off},
    ]}, {"plugins": [
        {"name": "proportion", "enableJobEnqueued": True, "enableQueueOrder": True, "enableReclaimable": True,
         "enabledOverused": False, "enabledAllocatable": False, "enablePreemptive": False},
        {"name": "predicates"},
    ]}]}  # fmt: skip


def bound_per_group(out: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for b in out["bindings"]:
        group = b["pod"].split("/")[1].rsplit("-p", 1)[0]
        counts[group] = counts.get(group, 0) + 1
    return counts


def test_hdrf_rescales_children_to_their_least_share_hdrf_test_rescaling():
    """``hdrf_test.go TestHDRF`` "rescaling test": one node (10 CPU, 10G, 50 pods); root/sci
    (weight 50) holds pg1 (pods of 1 CPU + 1G); root/eng (50) has dev (pg21: 1 CPU) and
    prod (pg22: 1G). Each placement goes to the queue first in hDRF's order: at the root's
    children sci against eng, eng's allocation being dev and prod rescaled to the smaller
    of their shares. sci's share is max(cpu, mem) = k/10 after k pods; eng's, with dev at
    d/10 and prod at p/10, is min(d, p)/10 on each of CPU and memory. Volcano's expected
    allocations: 5 pods each (5 CPU + 5G for pg1, 5 CPU for pg21, 5G for pg22): the
    CPU and memory are all taken."""
    objs = [node("n", cpu="10", memory="10G", gpu=None, pods="50"),
            hqueue("root-sci", "root/sci", "100/50"),
            hqueue("root-eng-dev", "root/eng/dev", "100/50/50"),
            hqueue("root-eng-prod", "root/eng/prod", "100/50/50"),
            podgroup("pg1", min_member=0, queue="root-sci"),
            podgroup("pg21", min_member=0, queue="root-eng-dev"),
            podgroup("pg22", min_member=0, queue="root-eng-prod"),
            *pods(10, "1", "1G", "pg1"), *pods(10, "1", "0", "pg21"), *pods(10, "0", "1G", "pg22")]  # fmt: skip
    out = post_decision(objs, go_test_conf())
    assert bound_per_group(out) == {"pg1": 5, "pg21": 5, "pg22": 5}


def test_hdrf_saturated_subtree_gives_way_hdrf_test_blocking_nodes():
    """``hdrf_test.go TestHDRF`` "blocking nodes test": one node (30 CPU, 30G, 500 pods);
    root/pg1, root/pg2, root/pg4 (weight 25 each) and root/pg3 (25) with pg31 (50). pg1,
    pg2 and pg31's first job ask 1 CPU a pod, pg32 (in queue root-pg3-pg31 too) and pg4 1G.
    Once the CPU is gone, every job asking CPU is saturated (it asks a resource the cluster
    has no more of), so pg3's node, whose jobs still include memory-only pg32, is not, and
    memory goes to pg3 and pg4 alike. Volcano's expected allocations: 10 CPU each to pg1,
    pg2 and pg31; 15G each to pg32 and pg4."""
    objs = [node("n", cpu="30", memory="30G", gpu=None, pods="500"),
            hqueue("root-pg1", "root/pg1", "100/25"), hqueue("root-pg2", "root/pg2", "100/25"),
            hqueue("root-pg3-pg31", "root/pg3/pg31", "100/25/50"),
            hqueue("root-pg3-pg32", "root/pg3/pg32", "100/25/50"), hqueue("root-pg4", "root/pg4", "100/25"),
            podgroup("pg1", min_member=0, queue="root-pg1"), podgroup("pg2", min_member=0, queue="root-pg2"),
            podgroup("pg31", min_member=0, queue="root-pg3-pg31"),
            podgroup("pg32", min_member=0, queue="root-pg3-pg31"), podgroup("pg4", min_member=0, queue="root-pg4"),
            *pods(30, "1", "0", "pg1"), *pods(30, "1", "0", "pg2"), *pods(30, "1", "0", "pg31"),
            *pods(30, "0", "1G", "pg32"), *pods(30, "0", "1G", "pg4")]  # fmt: skip
    out = post_decision(objs, go_test_conf())
    assert bound_per_group(out) == {"pg1": 10, "pg2": 10, "pg31": 10, "pg32": 15, "pg4": 15}


def hdrf_conf(hierarchy: bool = True, actions: str = "allocate", proportion: bool = False) -> dict[str, Any]:
    """drf (hierarchical, unless ``hierarchy`` is False) in a ``volcano-scheduler.conf`` (unset
    flags on, as Volcano's loader makes them); ``proportion`` adds that plugin after it
    (whose Allocatable caps a queue at its deserved share)."""
    drf: dict[str, Any] = {"name": "drf", "enableHierarchy": True} if hierarchy else {"name": "drf"}
    second = [drf, *([{"name": "proportion"}] if proportion else []), {"name": "predicates"}]
    return {"actions": actions, "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]}, {"plugins": second}]}


def weighted_cluster(cpu: str) -> list[dict[str, Any]]:
    return [node("n", cpu=cpu, memory="64Gi", gpu=None, pods="110"),
            hqueue("a", "root/a", "1/3"), hqueue("b", "root/b", "1/1"),
            podgroup("ja", min_member=0, queue="a"), podgroup("jb", min_member=0, queue="b"),
            *pods(4, "1", "1Mi", "ja"), *pods(4, "1", "1Mi", "jb")]  # fmt: skip


def test_hdrf_queue_order_divides_share_by_the_path_weight():
    """QueueOrder compares ``share / weight`` level by level. 4 CPUs; queue a weighs 3, b 1
    (their Queue ``weight`` is 1 each); each job asks 1 CPU a pod (CPU is the dominant
    resource), minMember 0, so the queues are ordered again after every pod. a (a tie at
    0: creation time, then name), b (b 0 < a 1/12), a (1/12 < 1/4), a (2/12 < 1/4): a 3,
    b 1. Without the hierarchy no plugin orders queues: a takes all 4."""
    assert bound_per_group(post_decision(weighted_cluster("4"), hdrf_conf())) == {"ja": 3, "jb": 1}
    assert bound_per_group(post_decision(weighted_cluster("4"), hdrf_conf(hierarchy=False))) == {"ja": 4}


def test_hdrf_weight_below_one_counts_as_one():
    """``buildHierarchy``: a weight below 1 is 1. Queue a at ``1/0.25`` is a at weight 1, so
    with b at 1 the two alternate: 2 and 2 on 4 CPUs."""
    objs = weighted_cluster("4")
    objs[1] = hqueue("a", "root/a", "1/0.25")
    assert bound_per_group(post_decision(objs, hdrf_conf())) == {"ja": 2, "jb": 2}


def test_hdrf_inner_node_rescales_children_to_the_least_share():
    """An inner node's allocation is its unsaturated children's, each rescaled to the least
    share among them (``updateHierarchicalShare``). root/x holds queues x1 and x2, root/y
    holds y; 6 CPUs, pods of 1 CPU, jobs of minMember 0 (CPU shares in sixths; ties go by
    name). x1 (all 0), y (x is 1 > y 0), x2 (x 1 = y 1: x2 < y by name), y (x = 1 + 1 = 2 >
    1), x1 (x 2 = y 2; inside x, x1 1 = x2 1: by name): now x1 holds 2 and x2 1, so x is x1
    rescaled to x2's share (2 × 1/2) plus x2: 2, not 3; so x2 (x 2 = y 2; x2 1 < x1 2) takes
    the last CPU: 2, 2, 2. Summing x's children unscaled would give y the last one (x 3 > y
    2): 2, 1, 3."""
    objs = [node("n", cpu="6", memory="64Gi", gpu=None, pods="110"),
            hqueue("x1", "root/x/x1", "1/1/1"), hqueue("x2", "root/x/x2", "1/1/1"), hqueue("y", "root/y", "1/1"),
            podgroup("jx1", min_member=0, queue="x1"), podgroup("jx2", min_member=0, queue="x2"),
            podgroup("jy", min_member=0, queue="y"),
            *pods(6, "1", "1Mi", "jx1"), *pods(6, "1", "1Mi", "jx2"), *pods(6, "1", "1Mi", "jy")]  # fmt: skip
    out = post_decision(objs, hdrf_conf())
    assert bound_per_group(out) == {"jx1": 2, "jx2": 2, "jy": 2}


def running(name: str, group: str, cpu: str = "1") -> dict[str, Any]:
    return pod(name, node="n", cpu=cpu, memory="1Mi", group=group)


def tree_of(objs: list[dict[str, Any]]) -> Any:
    from tests.kube import open_session

    ssn = open_session(objs, hdrf_conf())
    return ssn, ssn.plugins["drf"].tree


def job_saturated(tree: Any, key: str) -> bool:
    node, row = tree.leaves[key]
    return bool(node.SAT[row])


def test_hdrf_saturated_queue_goes_after_an_unsaturated_one():
    """``compareQueues``: at a level where one node is saturated and the other not, the
    unsaturated one first, whatever the shares. 8 CPUs; a's job holds the 1 CPU it asks
    (it has all it asked for: saturated), share 1/8; b's job holds 2 of the 4 it asks,
    share 2/8. b comes first; by share alone a would."""
    objs = [node("n", cpu="8", memory="64Gi", gpu=None, pods="110"),
            hqueue("a", "root/a", "1/1"), hqueue("b", "root/b", "1/1"),
            podgroup("ja", min_member=1, queue="a"), podgroup("jb", min_member=1, queue="b"),
            running("ja-0", "ja"), running("jb-0", "jb"), running("jb-1", "jb"),
            pod("jb-2", memory="1Mi", group="jb"), pod("jb-3", memory="1Mi", group="jb")]  # fmt: skip
    ssn, tree = tree_of(objs)
    a, b = ssn.cluster.queues["a"], ssn.cluster.queues["b"]
    assert tree.root.children["a"].saturated and not tree.root.children["b"].saturated
    assert tree.root.children["a"].share == pytest.approx(1 / 8) and tree.root.children["b"].share == pytest.approx(2 / 8)
    assert tree.queue_order(b, a) == -1 and tree.queue_order(a, b) == 1


def test_hdrf_job_asking_an_exhausted_resource_is_saturated():
    """``resourceSaturated``: a job holding a resource is saturated when it asks one the
    cluster has no more of (not *demanding*: the allocated total has reached the total).
    4 CPUs, all held: a's job (2 of 4 pods) and b's job (2 of 4) both ask CPU, so both are
    saturated, and the order falls back to the shares (equal: a tie)."""
    objs = [node("n", cpu="4", memory="64Gi", gpu=None, pods="110"),
            hqueue("a", "root/a", "1/1"), hqueue("b", "root/b", "1/1"),
            podgroup("ja", min_member=1, queue="a"), podgroup("jb", min_member=1, queue="b"),
            running("ja-0", "ja"), running("ja-1", "ja"), running("jb-0", "jb"), running("jb-1", "jb"),
            *[pod(f"{g}-{i}", memory="1Mi", group=g) for g in ("ja", "jb") for i in (2, 3)]]  # fmt: skip
    ssn, tree = tree_of(objs)
    assert job_saturated(tree, "default/ja") and job_saturated(tree, "default/jb")
    assert tree.queue_order(ssn.cluster.queues["a"], ssn.cluster.queues["b"]) == 0
    # one CPU more in the cluster: CPU is demanded again, neither job has all it asked
    objs[0] = node("n", cpu="5", memory="64Gi", gpu=None, pods="110")
    _, tree = tree_of(objs)
    assert not job_saturated(tree, "default/ja") and not job_saturated(tree, "default/jb")


def test_hdrf_queues_without_the_annotation_tie():
    """A queue without ``volcano.sh/hierarchy`` hangs its jobs from the root: compared with
    any queue the walk stops at the root, a tie left to the next plugin (here the default:
    creation time, then name), whatever the shares."""
    objs = [node("n", cpu="8", memory="64Gi", gpu=None, pods="110"),
            queue("a"), hqueue("b", "root/b", "1/1"),
            podgroup("ja", min_member=1, queue="a"), podgroup("jb", min_member=1, queue="b"),
            running("ja-0", "ja", cpu="4"), pod("ja-1", memory="1Mi", group="ja"), pod("jb-0", memory="1Mi", group="jb")]  # fmt: skip
    ssn, tree = tree_of(objs)
    assert tree.queue_order(ssn.cluster.queues["a"], ssn.cluster.queues["b"]) == 0
    assert tree.leaves["default/ja"][0] is tree.root


def test_hdrf_reclaimable_victim_when_reclaimer_queue_then_comes_first():
    """``reclaimFn``: the reclaimer's job with its request added; each candidate's job without
    it; a victim when the reclaimer's queue then comes first. 3 CPUs all held by a's job
    (3 pods of 1 CPU, it asks 4); b's job asks 2 and holds none. With b's pod placed and one
    of a's taken off, CPU is still all allocated (3 + 1 − 1), so both jobs are saturated
    and the shares decide: b 1/3 < a 2/3: a victim. On 4 CPUs with a holding 2 (b 1/4
    against a 1/4 after the swap, CPU demanded again, neither saturated): a tie, no victim."""
    def cluster(cpu: str, held: int) -> list[dict[str, Any]]:
        return [node("n", cpu=cpu, memory="64Gi", gpu=None, pods="110"),
                hqueue("a", "root/a", "1/1"), hqueue("b", "root/b", "1/1"),
                podgroup("ja", min_member=1, queue="a"), podgroup("jb", min_member=1, queue="b"),
                *[running(f"ja-{i}", "ja") for i in range(held)], pod("ja-x", memory="1Mi", group="ja"),
                pod("jb-0", memory="1Mi", group="jb"), pod("jb-1", memory="1Mi", group="jb")]  # fmt: skip

    ssn, tree = tree_of(cluster("3", 3))
    c = ssn.cluster
    reclaimer = next(t for t in c.jobs["default/jb"].tasks if t.name == "jb-0")
    candidates = [t for t in c.jobs["default/ja"].tasks if t.node >= 0]
    before = tree.root.S.tolist(), tree.root.SAT.tolist(), tree.root.A.tolist()
    assert [t.name for t in tree.reclaimable(reclaimer, candidates)] == ["ja-0", "ja-1", "ja-2"]
    assert (tree.root.S.tolist(), tree.root.SAT.tolist(), tree.root.A.tolist()) == before  # the tree is as it was
    ssn, tree = tree_of(cluster("4", 2))
    c = ssn.cluster
    reclaimer = next(t for t in c.jobs["default/jb"].tasks if t.name == "jb-0")
    assert tree.reclaimable(reclaimer, [t for t in c.jobs["default/ja"].tasks if t.node >= 0]) == []


@pytest.mark.parametrize(("hierarchy", "weights", "field"), [
    ("root/a", "1", "volcano.sh~1hierarchy"),
    ("root/a", "1/0", "volcano.sh~1hierarchy-weights"),
    ("root/a", "1/-2", "volcano.sh~1hierarchy-weights"),
    ("root/a", "x/1", "volcano.sh~1hierarchy-weights"),
    ("root/a", "1/1_0", "volcano.sh~1hierarchy-weights"),
    ("root/a", "1/1e400", "volcano.sh~1hierarchy-weights"),
    ("root", "", "volcano.sh~1hierarchy-weights"),
])  # fmt: skip
def test_hdrf_annotations_the_queue_webhook_refuses_are_a_422(hierarchy, weights, field):
    """``validateHierarchicalAttributes``: as many weights as path elements, each a number
    ``strconv.ParseFloat`` reads and above 0 (with fewer weights Volcano's scheduler would
    index past them and panic)."""
    from fastapi.testclient import TestClient

    import orjson

    from app.main import app
    from tests.kube import request

    objs = [node("n", cpu="4", memory="64Gi", gpu=None), queue("a", annotations={HIER: hierarchy, WEIGHTS: weights}),
            podgroup("ja", min_member=1, queue="a"), pod("ja-0", group="ja")]  # fmt: skip
    r = TestClient(app).post("/v1/decisions", content=orjson.dumps(request(objs, config=hdrf_conf())))
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["errors"][0]["pointer"] == f"/objects/1/metadata/annotations/{field}"
    # the same annotations without the hierarchy: not read, no refusal
    r = TestClient(app).post("/v1/decisions", content=orjson.dumps(request(objs, config=hdrf_conf(hierarchy=False))))
    assert r.status_code == 200, r.text


def test_hdrf_webhook_adds_the_root_to_a_queue_manifest():
    """Volcano's mutating webhook (``createQueuePatch``, on create): a hierarchy not starting
    with ``root`` gets ``root/`` and its weights ``1/``. A Queue without ``metadata.uid`` (a
    manifest not yet created) is read so; one from the cluster is read as it is."""
    manifest = queue("a", annotations={HIER: "eng/a", WEIGHTS: "2/3"})
    ssn, tree = tree_of([node("n"), manifest, podgroup("ja", queue="a"), pod("ja-0", group="ja")])
    assert ssn.cluster.queues["a"].hierarchy == "root/eng/a" and ssn.cluster.queues["a"].hierarchy_weights == "1/2/3"
    assert tree.root.children["eng"].weight == 2 and tree.root.children["eng"].children["a"].weight == 3
    manifest["metadata"]["uid"] = "uid-q-a"
    ssn, tree = tree_of([node("n"), manifest, podgroup("ja", queue="a"), pod("ja-0", group="ja")])
    assert ssn.cluster.queues["a"].hierarchy == "eng/a"
    assert tree.root.children["a"].weight == 3  # (the first element is the root's place: not read)


def test_hdrf_differing_weights_of_one_node_are_named():
    """Two queues giving one tree node different weights: the first job's queue's is used
    (Volcano: the first job it adds below the node, in Go's map order), and the warnings say so."""
    objs = [node("n"), hqueue("a", "root/eng/a", "1/2/1"), hqueue("b", "root/eng/b", "1/5/1"),
            podgroup("ja", queue="a"), pod("ja-0", group="ja"), podgroup("jb", queue="b"), pod("jb-0", group="jb")]  # fmt: skip
    out = post_decision(objs, hdrf_conf())
    assert any("root/eng different weights (2 and 5)" in w for w in out["warnings"]), out["warnings"]


def solo(name: str, q: str, cpu: str = "1") -> dict[str, Any]:
    """A Running pod on its own in queue ``q`` (a job of one; held as columns at ingest)."""
    return pod(name, node="n", cpu=cpu, memory="1Mi", annotations={"scheduling.volcano.sh/queue-name": q},
               extra_spec={"schedulerName": "volcano"})  # fmt: skip


def test_hdrf_pods_held_as_columns_count_as_their_saturated_jobs():
    """Running pods on their own are jobs of one holding all they ask (saturated). Summed per
    queue while they are held as columns, the tree is the one built from each pod's own
    job; an event on one of them (its eviction) gives it a row of its own first, and the
    tree is again the one built job by job with the same event."""
    from app.plugins.hdrf import HierarchicalDrf

    objs = [node("n", cpu="8", memory="64Gi", gpu=None), hqueue("a", "root/x/a", "1/2/1"),
            hqueue("b", "root/x/b", "1/2/3"), hqueue("c", "root/c", "1/1"),
            *[solo(f"a{i}", "a") for i in range(3)], solo("b0", "b", cpu="2"),
            podgroup("jc", min_member=1, queue="c"), running("jc-0", "jc"), pod("jc-1", memory="1Mi", group="jc")]  # fmt: skip

    def figures(tree: Any) -> list[Any]:
        out, stack = [], [tree.root]
        while stack:
            n = stack.pop()
            out.append((n.name, n.alloc.tolist(), n.share, n.saturated))
            stack.extend(k for k in n.kids if k is not None)
        return sorted(out)

    ssn, tree = tree_of(objs)
    assert ssn.cluster.inert is not None and set(tree.columns) == {"a", "b"}
    drf = ssn.plugins["drf"]
    ssn.cluster.jobs  # noqa: B018  (builds the pods' objects: a job each, nothing held as columns)
    whole = HierarchicalDrf(drf, drf.total)
    assert not whole.columns and {"default/a0", "default/b0"} <= set(whole.leaves)
    assert figures(tree) == figures(whole)
    a1 = next(t for t in ssn.cluster.jobs["default/a1"].tasks)
    tree.add(a1, -1)
    whole.add(a1, -1)
    assert "default/a1" in tree.leaves and figures(tree) == figures(whole)
    assert not tree.root.children["x"].saturated  # a1's job now holds nothing: not saturated


def test_hdrf_job_left_holding_nothing_is_not_saturated():
    """A job holding nothing is not saturated (``resourceSaturated`` looks only at resources
    it holds). So a pod on its own is no hDRF victim of a reclaimer whose queue would be
    saturated: 3 CPUs held by three pods on their own in queue a; b's job (2 pods) asks
    one; with it, CPU is over-asked (3 + 1 > 3: not demanding) and b's job, holding CPU,
    is saturated, while without a0 its job holds nothing, so a is not saturated and comes
    first: no victim, nothing evicted. The same 3 CPUs held by one job of a (3 of 4 pods)
    is saturated either way, and there the shares decide (b 1/3 < a 2/3): reclaimed."""
    def cluster(own_jobs: bool) -> list[dict[str, Any]]:
        held = ([solo(f"a{i}", "a") for i in range(3)] if own_jobs else
                [podgroup("ja", min_member=1, queue="a"), *[running(f"ja-{i}", "ja") for i in range(3)],
                 pod("ja-x", memory="1Mi", group="ja")])  # fmt: skip
        return [node("n", cpu="3", memory="64Gi", gpu=None, pods="110"),
                hqueue("a", "root/a", "1/1"), hqueue("b", "root/b", "1/1"), *held,
                podgroup("jb", min_member=1, queue="b"), pod("jb-0", memory="1Mi", group="jb"),
                pod("jb-1", memory="1Mi", group="jb")]  # fmt: skip

    assert post_decision(cluster(True), hdrf_conf(actions="allocate, reclaim"))["evictions"] == []
    out = post_decision(cluster(False), hdrf_conf(actions="allocate, reclaim"))
    assert out["evictions"] and all(e["pod"].startswith("default/ja-") for e in out["evictions"])


def test_hdrf_answer_does_not_depend_on_object_order():
    """The same cluster in any object order gives the same answer, byte for byte (the tree is
    built by name and key, whatever order the queues and jobs come in)."""
    import random

    import orjson

    objs = [node("n", cpu="7", memory="64Gi", gpu=None, pods="110"),
            hqueue("x1", "root/x/x1", "1/2/1"), hqueue("x2", "root/x/x2", "1/2/3"), hqueue("y", "root/y", "1/1"),
            podgroup("jx1", min_member=0, queue="x1"), podgroup("jx2", min_member=0, queue="x2"),
            podgroup("jy", min_member=0, queue="y"), solo("s0", "x1"), solo("s1", "y", cpu="2"),
            *pods(6, "1", "1Mi", "jx1"), *pods(6, "1", "1Mi", "jx2"), *pods(6, "1", "1Mi", "jy")]  # fmt: skip
    want = orjson.dumps(post_decision(objs, hdrf_conf()))
    rng = random.Random(7)
    for _ in range(5):
        shuffled = list(objs)
        rng.shuffle(shuffled)
        assert orjson.dumps(post_decision(shuffled, hdrf_conf())) == want


def test_hdrf_queue_hierarchy_deeper_than_the_limit_is_a_422():
    """SECURITY.md: a queue's hierarchy may have 64 levels below the root (Gangplank's bound;
    Volcano has none): 64 are read, 65 are a 422 at the annotation."""
    from fastapi.testclient import TestClient

    import orjson

    from app.main import app
    from tests.kube import request

    def objs(levels: int) -> list[dict[str, Any]]:
        path = "root/" + "/".join(f"l{i}" for i in range(levels))
        return [node("n"), hqueue("a", path, "/".join(["1"] * (levels + 1))), podgroup("ja", queue="a"),
                pod("ja-0", group="ja")]  # fmt: skip

    assert [b["pod"] for b in post_decision(objs(64), hdrf_conf())["bindings"]] == ["default/ja-0"]
    r = TestClient(app).post("/v1/decisions", content=orjson.dumps(request(objs(65), config=hdrf_conf())))
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/metadata/annotations/volcano.sh~1hierarchy"


def test_hdrf_batch_events_leave_the_tree_single_events_leave():
    """The session's batch handlers (``add_many``: one sum per job, the tree worked out once)
    give the tree the same figures as the tasks added one by one, pods held as columns
    (taken out of their queue's sum) included."""
    from app.plugins.hdrf import HierarchicalDrf

    objs = [node("n", cpu="8", memory="64Gi", gpu=None), hqueue("a", "root/x/a", "1/2/1"),
            hqueue("b", "root/x/b", "1/2/3"), hqueue("c", "root/c", "1/1"), solo("a0", "a"), solo("b0", "b", cpu="2"),
            podgroup("jc", min_member=1, queue="c"), running("jc-0", "jc"), *pods(3, "1", "1Mi", "jc")]  # fmt: skip
    ssn, _ = tree_of(objs)
    drf = ssn.plugins["drf"]
    one, many = HierarchicalDrf(drf, drf.total), HierarchicalDrf(drf, drf.total)
    c = ssn.cluster
    tasks = [t for t in c.jobs["default/jc"].tasks if t.node < 0] + list(c.jobs["default/a0"].tasks)

    def figures(tree: Any) -> list[Any]:
        out, stack = [], [tree.root]
        while stack:
            n = stack.pop()
            out.append((n.name, n.alloc.tolist(), n.share, n.saturated, n.S.tolist(), n.SAT.tolist()))
            stack.extend(k for k in n.kids if k is not None)
        return sorted(out)

    for sign in (1, -1):
        for t in tasks:
            one.add(t, sign)
        many.add_many(tasks, sign)
        assert figures(one) == figures(many)
