"""Rules a review of session 46's Kueue changes (per-flavor Topologies, the skipped Workload's
requeue, the what-if behind ``options.topologyWhatIf``) found broken, each fixed: a TAS flavor
naming a KAI Topology keeps its topologyAssignment; without a TAS flavor (and without the what-if)
no podSet gets a topologyAssignment or is confined to a Topology no flavor names; a preemptor
holds its usage for one cycle at a time (Kueue's fresh snapshot per cycle), so a Workload skipped
behind it is skipped again, not charged twice. Each docstring tells the state the review found."""

from __future__ import annotations

from tests.kube import request
from tests.test_admissions import B, R, nodes, one, pod_set, post, workload
from tests.test_kueue_quota import cq, lq, tas_flavor


def test_a_tas_flavor_naming_a_kai_topology_keeps_its_topology_assignment(client):
    """Rule: a TAS flavor's topologyName may name a KAI Topology when no Kueue one has that
    name (mapping.py ``_tas_state``: the flavor's TAS snapshot is built in it, and e37fa7c made
    the chosen topology follow it). 4260b81 reads each TAS podSet's levels from Kueue Topologies
    only (``keys_of`` in ``_quota``, mapping.py:339; ``plan.ps_levels``, mapping.py:443): a podSet
    placed on such a flavor gets empty levels, so its ``topologyAssignment`` is dropped from the
    answer and its ``status.admission`` (admit.py:392-395) and its pods are not confined; before
    4260b81 the answer was ``{levels: [block, rack], domains: [[b1, r1] x2]}``."""
    kai = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "dc"},
           "spec": {"levels": [{"nodeLabel": B}, {"nodeLabel": R}]}}  # fmt: skip
    objs = [kai, tas_flavor("f", "dc"), cq("cq", {"f": 64}), lq("lq", "cq")]
    w = one(post(client, request(nodes() + objs, workloads=[workload("w", pod_set(count=2, tr={"required": R}))])), "ml/w")
    assert w["reason"] == "Admitted"
    ta = w["podSets"][0]["topologyAssignment"]
    assert ta is not None and ta["levels"] == [B, R], w
    assert w["admission"]["podSetAssignments"][0].get("topologyAssignment") == ta


def test_without_a_tas_flavor_and_without_the_what_if_no_workload_gets_a_topology_assignment(client):
    """Rule (079cd9e: with ClusterQueues, no TAS flavor and ``topologyWhatIf`` false the answer is
    Kueue's; README: "Only a podSet on a TAS flavor gets a ``topologyAssignment`` and is kept to
    the topology's nodes"): Kueue sets a podSet's topologyAssignment only from a TAS placement
    (flavorassigner.go:876 ``UpdateForTASResult``, defined at :87; ``toAPI`` flavorassigner.go:446), never for a
    flavor without a topologyName. Gangplank still leaves ``plan.tas`` None when the snapshot has
    no TAS flavor (mapping.py:439 ``... if tas_flavors else None``), which means "every podSet"
    in ``_answer`` (admit.py:395) and ``after_build`` (mapping.py:797): a plain Workload on the
    non-TAS flavor ``f`` is answered with a ``topologyAssignment`` (in its ``status.admission``
    too) and a confining nodeSelector, the what-if's placement the option is meant to gate."""
    from tests.test_admissions import body
    from tests.test_kueue_quota import flavor, wl

    w = one(post(client, body([wl("plain", 16)], [flavor("f"), cq("cq", {"f": 24}), lq("lq", "cq")])), "ml/plain")
    assert w["reason"] == "Admitted"
    assert w["podSets"][0]["topologyAssignment"] is None, w["podSets"]
    assert "topologyAssignment" not in w["admission"]["podSetAssignments"][0]
    assert w["podSetUpdates"] == [], w["podSetUpdates"]


def test_an_unreferenced_topology_does_not_confine_a_plain_workload_without_the_what_if(client):
    """Same rule, the behaviour: a Kueue Topology no ResourceFlavor names changes nothing in Kueue
    (only TAS flavors read Topologies: snapshot.go:214-243 builds the TAS snapshots per TAS
    flavor, :260 gives a ClusterQueue those of its flavors). With ClusterQueues, no TAS flavor and ``topologyWhatIf`` false, Gangplank still
    confines every podSet of a plain Workload to the Topology's labelled nodes (``after_build``,
    mapping.py:797-803, ``plan.tas`` None): the labelled nodes are busy, the free ones (m0, m1)
    carry no block/rack label, so the Workload Kueue admits is answered NoFit; the same request
    without the Topology object is Admitted on m0/m1."""
    from tests.kube import node, pod
    from tests.test_admissions import OS, topology
    from tests.test_kueue_quota import flavor, wl

    objs = [flavor("f"), cq("cq", {"f": 24}), lq("lq", "cq"), node("m0", labels={OS: "linux"}), node("m1", labels={OS: "linux"})]
    objs += [pod(f"busy{i}", node=f"n{i}", phase="Running", gpu=8) for i in range(8)]
    without = one(post(client, request(nodes() + objs, workloads=[wl("plain", 16)])), "ml/plain")
    assert without["reason"] == "Admitted"
    with_topology = one(post(client, request(nodes() + objs + [topology()], workloads=[wl("plain", 16)])), "ml/plain")
    assert with_topology["reason"] == "Admitted", with_topology["message"]


def test_a_skipped_workload_retried_behind_a_preemptor_is_not_charged_the_preemptors_usage_twice(client):
    """Rule (32b0855, RequeueReasonFailedAfterNomination): a skipped Workload is requeued at once
    (scheduler.go:1165-1170, cluster_queue.go:826-837) and nominated again in the next cycle on
    a fresh snapshot (scheduler.go ``schedule``: ``cache.Snapshot`` per cycle): the victim ``v``
    still holds its quota (evicted, not gone), the preemptor ``p`` holds none (its
    ``cq.AddUsage`` at scheduler.go:486 lasts one cycle: scheduler.go:334 takes a new snapshot each cycle; ``p`` is requeued PendingPreemption and
    nominated again, and processed first: no borrowing). So in every cycle ``w1`` (b, nominal 0,
    borrowing a's 8) is nominated Fit and skipped after ``p`` ("no longer fits", scheduler.go:478).
    Gangplank now tries ``w1`` again, but in a cycle whose quota tree still carries ``p``'s usage
    from cycle 1 (quota.py:1023-1024 ``node.add_usage`` is never reverted; only the unreclaimable
    reservations are, quota.py:1054-1055) besides ``v``'s: ``w1`` is nominated NoFit ("8 more
    needed": 8 + 16 of 16) and answered so. Before 32b0855 (and with kueueCycles 1) the answer
    was Kueue's skip message."""
    from tests.test_admissions import body
    from tests.test_kueue_quota import flavor, held, wl

    objs = [flavor("f"), cq("a", {"f": 16}, cohort="team", preemption={"withinClusterQueue": "LowerPriority"}),
            cq("b", {"f": 0}, cohort="team"), lq("lqa", "a"), lq("lqb", "b")]  # fmt: skip
    wls = [held("v", 8, 0, "2026-11-23T10:00:00Z", queue="a"), wl("p", 16, queue="lqa", priority=10), wl("w1", 8, queue="lqb")]
    a = post(client, body(wls, objs))
    assert one(a, "ml/p")["reason"] == "Preempting"
    w1 = one(a, "ml/w1")
    assert (w1["admitted"], w1["message"]) == (False, "Workload no longer fits after processing another workload"), w1
