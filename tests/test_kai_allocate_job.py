"""KAI's AllocateJob as the ``kai`` profile's allocate runs it (app.kai.allocate,
app.kai.topology): each sub-group set's constraint, domains sized with the attempt's
tasks, preferred-level node scores that pod sets take from the set above them, and a
pipelined job tried again for its next pod. Small clusters,
worked out by hand in each docstring (racks and zones are node labels of a KAI Topology)."""

from __future__ import annotations

from tests.kube import node, pod
from tests.test_kai import decide, kai_queue

TOPOLOGY = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "dc"},
            "spec": {"levels": [{"nodeLabel": "zone"}, {"nodeLabel": "rack"}]}}  # fmt: skip


def _group(name: str, sub_groups: list[dict], *, min_member: int, topology: dict | None = None) -> dict:
    spec = {"minMember": min_member, "queue": "q", "priorityClassName": "train", "subGroups": sub_groups}
    if topology:
        spec["topologyConstraint"] = topology
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": "ml"},
            "spec": spec}  # fmt: skip


def _pods(group: str, sub_group: str | None, names: list[str], gpu: int) -> list[dict]:
    labels = {"kai.scheduler/subgroup-name": sub_group} if sub_group else None
    return [pod(n, ns="ml", gpu=gpu, labels=labels, annotations={"pod-group-name": group}) for n in names]


def _running(name: str, on: str, gpu: int) -> list[dict]:
    """A one-pod KAI job running on node ``on``."""
    objs = [_group(name, [], min_member=1)]
    p = pod(f"{name}-0", ns="ml", gpu=gpu, annotations={"pod-group-name": name})
    p["spec"]["nodeName"] = on
    p["status"] = {"phase": "Running"}
    return objs + [p]


def _nodes(spec: dict[str, tuple[str, str]], gpu: int = 2) -> list[dict]:
    return [node(n, gpu=gpu, labels={"zone": z, "rack": r}) for n, (z, r) in spec.items()]


def test_kai_subgroup_set_holds_its_pod_sets_in_one_domain_of_its_required_level(client):
    """A sub-group that others name as parent is a set; AllocateJob asks the topology
    plugin for the set's node sets (allocateSubGroupSet), then places its pod sets inside
    the one it is trying. Zone z1 has a (2 GPUs free) and b (full); z2 has c and d (2
    free each). Pod sets x and y (one 2-GPU pod each) under set ``rep`` (required zone):
    z1 cannot hold both, so both go to z2 (c, then d). Without the set's constraint x
    would take a (the first of the equally free nodes) and y c: two zones."""
    nodes = _nodes({"a": ("z1", "r1"), "b": ("z1", "r2"), "c": ("z2", "r3"), "d": ("z2", "r4")})
    sets = [{"name": "rep", "topologyConstraint": {"topology": "dc", "requiredTopologyLevel": "zone"}},
            {"name": "x", "minMember": 1, "parent": "rep"}, {"name": "y", "minMember": 1, "parent": "rep"}]  # fmt: skip
    job = [_group("j", sets, min_member=2), *_pods("j", "x", ["j-x"], 2), *_pods("j", "y", ["j-y"], 2)]
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *nodes, *_running("busy", "b", 2), *job])
    assert {b["pod"]: b["node"] for b in out["bindings"]} == {"ml/j-x": "c", "ml/j-y": "d"}


def test_kai_topology_domains_are_sized_with_the_attempts_tasks(client):
    """subSetNodesFn sizes the domains with the tasks of this attempt only
    (GetTasksToAllocate: an elastic job at minMember 1 asks for one pod per attempt). Job
    p: 2 one-GPU pods, minMember 1, required rack. Rack r1 (a) has 1 GPU free, r2 (b) 2.
    First attempt, one pod: both racks fit, r1 is the tighter (1/1 against 1/2) and comes
    first, p-0 goes to a. Second attempt: the job's running pod holds it to r1, which has
    no GPU left: p-1 waits. Sized with both pods, r1 would not fit and both would go to b."""
    nodes = _nodes({"a": ("z1", "r1"), "b": ("z1", "r2")})
    job = [_group("p", [], min_member=1, topology={"topology": "dc", "requiredTopologyLevel": "rack"}),
           *_pods("p", None, ["p-0", "p-1"], 1)]  # fmt: skip
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *nodes, *_running("busy", "a", 1), *job])
    assert {b["pod"]: b["node"] for b in out["bindings"]} == {"ml/p-0": "a"}


def test_kai_pod_sets_take_the_preferred_node_scores_of_the_set_above_them(client):
    """getRelevantNodeScores: a pod set without scores of its own takes the nearest set's.
    Set ``rep`` prefers racks; racks r1 (a) and r2 (b) hold one 2-GPU pod each, so no rack
    holds both pods and the set's node set is the whole cluster, where its node scores
    rank the racks in sorted-tree order (equal ratios, by name: r1 50,000, r2 100,000).
    Pod set x (no constraint of its own) takes them: x's pod goes to b, y's then to a.
    Without them x would take a, the first of two equally free nodes."""
    nodes = _nodes({"a": ("z1", "r1"), "b": ("z1", "r2")})
    sets = [{"name": "rep", "topologyConstraint": {"topology": "dc", "preferredTopologyLevel": "rack"}},
            {"name": "x", "minMember": 1, "parent": "rep"}, {"name": "y", "minMember": 1, "parent": "rep"}]  # fmt: skip
    job = [_group("j", sets, min_member=2), *_pods("j", "x", ["j-x"], 2), *_pods("j", "y", ["j-y"], 2)]
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *nodes, *job])
    assert {b["pod"]: b["node"] for b in out["bindings"]} == {"ml/j-x": "b", "ml/j-y": "a"}


def test_kai_pipelined_elastic_job_is_tried_again_for_its_next_pod(client):
    """allocate.go Execute: a job whose attempt is committed (pipelined ones included) and
    that still has pods to place goes back into the queue order. Node a's 2 GPUs are held
    by a terminating pod; job p (2 one-GPU pods, minMember 1) fits only on that releasing
    capacity: its first attempt pipelines p-0 (ShouldPipelineJob: nothing allocated), the
    next one p-1. Both are nominated to a, nothing is bound."""
    going = _running("old", "a", 2)
    going[1]["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    job = [_group("p", [], min_member=1), *_pods("p", None, ["p-0", "p-1"], 1)]
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *_nodes({"a": ("z1", "r1")}), *going, *job])
    assert out["bindings"] == []
    assert {b["pod"]: b["node"] for b in out["nominations"]} == {"ml/p-0": "a", "ml/p-1": "a"}


ANTI_X = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}}}  # fmt: skip


def test_kai_run_of_identical_pods_keeps_each_pods_labels_for_anti_affinity(client):
    """KAI checks every pod's predicates on its own: a running pod on node a repels pods
    labelled app=x. Job j: four identical one-GPU pods, the last labelled app=x; binpack
    puts the first three on a (the fuller node), the fourth must go to b. Placed as one run
    with the first pod's predicates, it would go to a as well."""
    guard = _running("guard", "a", 1)
    guard[1]["spec"].update(ANTI_X)
    job = [_group("j", [], min_member=4)]
    job += [pod(f"j-{i}", ns="ml", gpu=1, labels={"app": "x" if i == 3 else "y"}, annotations={"pod-group-name": "j"})
            for i in range(4)]  # fmt: skip
    out = decide(client, [kai_queue("q", 16), node("a", gpu=8), node("b", gpu=8), *guard, *job])
    assert {b["pod"]: b["node"] for b in out["bindings"]} == {"ml/j-0": "a", "ml/j-1": "a", "ml/j-2": "a", "ml/j-3": "b"}


def test_kai_pod_set_with_nothing_to_place_in_the_attempt_is_satisfied(client):
    """allocatePodSet of a pod set whose tasks are all placed already (here pod set y, its
    pod running) places nothing and succeeds, also inside the solver's simulations where
    a set's preferred-level node scores are kept (preempt, racks r1 and r2 full of
    low-priority pods): x's pod is nominated after one eviction; no error."""
    nodes = _nodes({"a": ("z1", "r1"), "b": ("z1", "r2")})
    low = [o for n in ("a", "b") for o in _running(f"low-{n}", n, 2)]
    sets = [{"name": "x", "minMember": 1}, {"name": "y", "minMember": 1}]
    group = _group("j", sets, min_member=2, topology={"topology": "dc", "preferredTopologyLevel": "rack"})
    group["spec"]["priorityClassName"] = "build"
    y = _pods("j", "y", ["j-y"], 0)[0]
    y["spec"]["nodeName"], y["status"] = "a", {"phase": "Running"}
    objs = [TOPOLOGY, kai_queue("q", 8), *nodes, *low, group, y, *_pods("j", "x", ["j-x"], 2)]
    out = decide(client, objs, {"profile": "kai", "actions": "allocate, preempt"})
    assert [b["pod"] for b in out["nominations"]] == ["ml/j-x"]
    assert len(out["evictions"]) == 1


def _two_racks_job(constraint: dict) -> list[dict]:
    """Racks r1 (a) and r2 (b) with one GPU each; job p: two one-GPU pods under ``constraint``."""
    return [TOPOLOGY, kai_queue("q", 8), *_nodes({"a": ("z1", "r1"), "b": ("z1", "r2")}, gpu=1),
            _group("p", [], min_member=2, topology=constraint), *_pods("p", None, ["p-0", "p-1"], 1)]  # fmt: skip


def test_kai_topology_constraint_holds_a_job_to_the_named_topologys_level(client):
    """The constraint names Topology dc: both pods must share a rack, and no rack has two GPUs."""
    out = decide(client, _two_racks_job({"topology": "dc", "requiredTopologyLevel": "rack"}))
    assert out["bindings"] == []


def test_kai_topology_constraint_without_a_topology_name_is_ignored(client):
    """FromPodGroup takes the PodGroup's constraint only when it names a topology
    (getJobTopology: no name, no constraint): the pods go to both racks, and a warning
    says the constraint was ignored."""
    out = decide(client, _two_racks_job({"requiredTopologyLevel": "rack"}))
    assert {b["pod"]: b["node"] for b in out["bindings"]} == {"ml/p-0": "a", "ml/p-1": "b"}
    assert any("name no topology" in w and "ml/p" in w for w in out["warnings"])


def test_kai_topology_constraint_naming_another_topology_is_not_met(client):
    """subSetNodesFn: "Requested topology other does not exist": no node set, the job is
    not placed; so too a constraint naming dc with neither level (calculateRelevantDomainLevels
    fails). A warning names them."""
    for constraint in ({"topology": "other", "requiredTopologyLevel": "rack"}, {"topology": "dc"}):
        out = decide(client, _two_racks_job(constraint))
        assert out["bindings"] == [] and out["nominations"] == []
        assert any("name a topology the snapshot lacks, or no level of it" in w for w in out["warnings"])


def test_kai_topology_ratio_counts_ephemeral_storage_in_thousands_of_bytes(client):
    """getJobRatioToFreeResources compares BaseResource.ToResourceList quantities: KAI keeps
    ephemeral-storage in bytes but lists every scalar as a milli-quantity, so its Value()
    is ceil(bytes / 1000). Racks r1 (a: 100Gi + 500 bytes) and r2 (b: 100Gi): in thousands
    of bytes both free amounts round to 107,374,183, the ratios tie and r1 comes first by
    name; in bytes r2 would be the tighter. Review finding F8 (s5_eph.py)."""
    nodes = []
    for name, rack, eph in (("a", "r1", "107374182900"), ("b", "r2", "107374182400")):
        n = node(name, gpu=None, labels={"zone": "z1", "rack": rack})
        n["status"]["allocatable"]["ephemeral-storage"] = eph
        n["status"]["capacity"] = n["status"]["allocatable"]
        nodes.append(n)
    p = pod("j-0", ns="ml", cpu="100m", memory="1Gi", annotations={"pod-group-name": "j"})
    p["spec"]["containers"][0]["resources"]["requests"]["ephemeral-storage"] = "10Gi"
    job = [_group("j", [], min_member=1, topology={"topology": "dc", "requiredTopologyLevel": "rack"}), p]
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *nodes, *job])
    assert {b["pod"]: b["node"] for b in out["bindings"]} == {"ml/j-0": "a"}


def test_kai_pods_in_none_of_their_podgroups_pod_sets_are_left_out(client):
    """AddTaskInfo: a PodGroup with sub-groups has only those pod sets (setSubGroups adds
    the default one only when there are none), and a pod in none of them is not the job's:
    here j-free (no sub-group label) and j-rep (labelled with the set rep, which is no pod
    set). Only j-x is placed; a warning names the others."""
    sets = [{"name": "rep"}, {"name": "x", "minMember": 1, "parent": "rep"}]
    job = [_group("j", sets, min_member=1), *_pods("j", "x", ["j-x"], 1), *_pods("j", None, ["j-free"], 1),
           *_pods("j", "rep", ["j-rep"], 1)]  # fmt: skip
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *_nodes({"a": ("z1", "r1"), "b": ("z1", "r2")}), *job])
    assert [b["pod"] for b in out["bindings"]] == ["ml/j-x"]
    assert any("2 pod(s) of KAI PodGroups are in none of their pod sets" in w for w in out["warnings"])


def test_kai_declared_pod_set_without_its_pods_keeps_the_job_waiting(client):
    """FromPodGroup makes a pod set of every leaf sub-group, pods or not; pod set y
    (minMember 1) has no pod yet, so the job is not ready for scheduling (IsReadyForScheduling)
    and x's pod waits too."""
    sets = [{"name": "x", "minMember": 1}, {"name": "y", "minMember": 1}]
    job = [_group("j", sets, min_member=2), *_pods("j", "x", ["j-x"], 1)]
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *_nodes({"a": ("z1", "r1")}), *job])
    assert out["bindings"] == [] and out["nominations"] == []


def _besteffort(group: str, names: list[str]) -> list[dict]:
    return [pod(n, ns="ml", cpu=None, memory=None, annotations={"pod-group-name": group}) for n in names]


def test_kai_besteffort_tasks_fit_the_domains_above_the_search_domain(client):
    """subSetNodesFn works out free resources for the search domain's subtree only (the
    lowest common domain of the valid nodes; every other domain is reset to nothing free).
    Nodes a and b are both in zone z1, rack r1, so the search domain is r1, below the
    required zone. Zone z1 then has nothing free: 1-GPU pods cannot fit it and wait, but
    BestEffort pods ask for nothing the ratio counts (ratio 0), so z1 fits them, with the
    valid nodes, and both are placed."""
    nodes = _nodes({"a": ("z1", "r1"), "b": ("z1", "r1")})
    zone = {"topology": "dc", "requiredTopologyLevel": "zone"}
    job = [_group("j", [], min_member=2, topology=zone), *_besteffort("j", ["j-0", "j-1"])]
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *nodes, *job])
    assert sorted(b["pod"] for b in out["bindings"]) == ["ml/j-0", "ml/j-1"]
    job = [_group("j", [], min_member=2, topology=zone), *_pods("j", None, ["j-0", "j-1"], 1)]
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *nodes, *job])
    assert out["bindings"] == [] and out["nominations"] == []


HOST_TOPOLOGY = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "dc"},
                 "spec": {"levels": [{"nodeLabel": "zone"}, {"nodeLabel": "rack"},
                                     {"nodeLabel": "kubernetes.io/hostname"}]}}  # fmt: skip


def _hosts(names: list[str], gpu: int = 2) -> list[dict]:
    return [node(n, gpu=gpu, labels={"zone": "z1", "rack": "r1", "kubernetes.io/hostname": n}) for n in names]


def test_kai_hostname_level_is_a_level_like_any_other(client):
    """KAI's topology tree keeps a Topology's last level kubernetes.io/hostname as an
    ordinary level: a domain per node. Nodes a and b (rack r1, 2 GPUs each); 2 one-GPU
    pods. Required hostname: the search domain is r1, its hosts are the candidates, equally
    tight (1/2 each), a first by name: both pods on a. Preferred hostname: the same order,
    and a's score (50,000) is below b's (100,000), but the first host set that holds them
    is a's."""
    for level in ("requiredTopologyLevel", "preferredTopologyLevel"):
        job = [_group("j", [], min_member=2, topology={"topology": "dc", level: "kubernetes.io/hostname"}),
               *_pods("j", None, ["j-0", "j-1"], 1)]  # fmt: skip
        out = decide(client, [HOST_TOPOLOGY, kai_queue("q", 8), *_hosts(["a", "b"]), *job])
        assert {b["pod"]: b["node"] for b in out["bindings"]} == {"ml/j-0": "a", "ml/j-1": "a"}, level


def test_kai_one_valid_node_has_its_host_as_lowest_common_domain(client):
    """lowestCommonDomainID descends every level on which the valid nodes agree, the
    hostname level included: with one node, its host. A required rack is then above the
    search domain, where KAI works out no free resources, so a one-GPU pod does not fit
    rack r1 and waits; without the hostname level the search domain is r1 itself and the
    pod is placed."""
    job = [_group("j", [], min_member=1, topology={"topology": "dc", "requiredTopologyLevel": "rack"}),
           *_pods("j", None, ["j-0"], 1)]  # fmt: skip
    out = decide(client, [HOST_TOPOLOGY, kai_queue("q", 8), *_hosts(["a"]), *job])
    assert out["bindings"] == [] and out["nominations"] == []
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *_hosts(["a"]), *job])
    assert [b["node"] for b in out["bindings"]] == ["a"]


def test_kai_lowest_common_domain_stops_above_an_empty_label_value(client):
    """lowestCommonDomainID stops at a level whose common value is "" (as if the nodes did
    not agree there): nodes a and b are in zone z1 with rack "" each, so the search domain
    is z1, not rack "", and the required zone is inside it: the pod is placed. Stopping at
    rack "" would leave the zone above the search domain, with nothing free worked out."""
    nodes = _nodes({"a": ("z1", ""), "b": ("z1", "")})
    job = [_group("j", [], min_member=1, topology={"topology": "dc", "requiredTopologyLevel": "zone"}),
           *_pods("j", None, ["j-0"], 1)]  # fmt: skip
    out = decide(client, [TOPOLOGY, kai_queue("q", 8), *nodes, *job])
    assert [b["pod"] for b in out["bindings"]] == ["ml/j-0"]
