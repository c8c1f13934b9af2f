"""Kueue's elastic Jobs by Workload slices (``ElasticJobsViaWorkloadSlices``, beta, on): a scaled
Job's new Workload slice, annotated ``kueue.x-k8s.io/workload-slice-replacement-for`` with the
admitted slice it replaces, asks the quota only for the difference, keeps that slice's flavors,
and once admitted Kueue finishes the old slice (``WorkloadSliceReplaced``).

Transcribed (kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``):

* ``pkg/scheduler/scheduler_test.go`` ``TestSchedule`` "workload-slice fits in single
  clusterQueue" (the ``sales`` ClusterQueue of Go's harness: 50 cpu on flavor ``default``);
* ``pkg/scheduler/flavorassigner/flavorassigner_test.go`` ``TestAssignFlavors`` "workload slice
  preemption fits in the original workload resource flavor" and "... does not fit in the
  original workload resource flavor" (Go hands the assigner the old slice's ``TotalRequests``;
  here the old slice is an admitted Workload of the same ClusterQueue with that admission, so it
  also holds its quota, which the cases' capacities leave room for or which changes nothing:
  flavor ``one``'s 500m is past anyway).

Read with ``pkg/workloadslicing/workloadslicing.go`` (``ReplacedWorkloadSlice``,
``ReplacementForKey``), ``flavorassigner.go`` (``findFlavorForPodSets``: the flavor check and
the subtraction; ``psError`` / ``TotalRequestsFor``: the usage taken is the difference) and
``scheduler.go`` (``getInitialAssignments``, ``replaceWorkloadSlice``).

The last tests are rules on small clusters: the quota the old slice holds is what the new one
needs no more of; a slice naming a Workload not admitted in its ClusterQueue, or in another
namespace, asks for all of it; with the gate off the annotation is not read.
"""

from __future__ import annotations

from typing import Any

from tests.kube import request, roomy_node
from tests.test_admissions import one, post
from tests.test_kueue_scheduler_upstream import adm, at, cq, fq, lq, ps, psa, wl

SLICE = "kueue.x-k8s.io/workload-slice-replacement-for"
NS = "sales"


def namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def old_slice(name: str, count: int, cpu_each: str, flavor: str, total: str, queue: str = "main", ns: str = NS,
              **more: tuple[str, str]) -> dict[str, Any]:  # fmt: skip
    """An admitted slice: ``count`` pods of ``cpu_each`` cpu (and ``more``: resource -> (each, total)),
    its admission on ``flavor``."""
    requests = {"cpu": cpu_each, **{r: each for r, (each, _) in more.items()}}
    usage = [("cpu", flavor, total), *((r, flavor, tot) for r, (_, tot) in more.items())]
    return wl(name, ns, ps("main", count, requests), queue=queue, admission=adm("cq", psa("main", *usage, count=count)),
              admitted_at=at(0))  # fmt: skip


def new_slice(name: str, count: int, requests: dict[str, str], replaces: str | None, ns: str = NS) -> dict[str, Any]:
    w = wl(name, ns, ps("main", count, requests), queue="main")
    if replaces is not None:
        w["metadata"]["annotations"] = {SLICE: replaces}
    return w


def objects(*flavors: dict[str, Any], extra: tuple[dict[str, Any], ...] = ()) -> list[dict[str, Any]]:
    rfs = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": f["name"]}, "spec": {}}
           for f in flavors]  # fmt: skip
    return [roomy_node("n1", ("cpu", "memory")), namespace(NS), *rfs, cq("cq", list(flavors)), lq("main", NS, "cq"), *extra]


# -- TestSchedule ----------------------------------------------------------------------------------
def test_workload_slice_fits_in_single_cluster_queue(client) -> None:  # type: ignore[no-untyped-def]
    """``scheduler_test.go`` "workload-slice fits in single clusterQueue": foo-2 (15 × 1 cpu)
    replaces the admitted foo-1 (10 × 1 cpu) in ``sales`` (50 cpu): foo-2 is admitted with its
    whole assignment (cpu 15 on ``default``, count 15) and foo-1 is Finished
    (``WorkloadSliceReplaced``, "Replaced to accommodate a workload (UID: , JobUID: ) due to
    workload slice aggregation")."""
    old = old_slice("foo-1", 10, "1", "default", "10")
    new = new_slice("foo-2", 15, {"cpu": "1"}, "sales/foo-1")
    out = post(client, request(objects(fq("default", ("cpu", "50", "0"))), workloads=[old, new]))
    got = one(out, "sales/foo-2")
    assert (got["admitted"], got["reason"]) == (True, "Admitted")
    assert got["admission"]["podSetAssignments"] == [
        {"name": "main", "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "15"}, "count": 15}]
    gone = one(out, "sales/foo-1")
    assert (gone["admitted"], gone["reason"]) == (False, "Finished")
    assert gone["message"].startswith("Replaced to accommodate a workload (UID: , JobUID: ) due to workload slice "
                                      "aggregation")  # fmt: skip


# -- TestAssignFlavors -----------------------------------------------------------------------------
def test_workload_slice_preemption_fits_in_the_original_workload_resource_flavor(client) -> None:  # type: ignore[no-untyped-def]
    """``flavorassigner_test.go`` "workload slice preemption fits in the original workload resource
    flavor": the old slice holds 2 cpu, 10Mi on ``two``; the new one (3 cpu, 10Mi) may not take
    ``one`` (3 cpu would fit it: "could not assign one flavor since the original workload is
    assigned: two") and takes ``two`` for the 1 cpu more (4 cpu there)."""
    flavors = (fq("one", ("cpu", "3"), ("memory", "1Gi")), fq("two", ("cpu", "4"), ("memory", "2Gi")))
    old = old_slice("old", 1, "2", "two", "2", memory=("10Mi", "10Mi"))
    new = new_slice("new", 1, {"cpu": "3", "memory": "10Mi"}, "sales/old")
    got = one(post(client, request(objects(*flavors), workloads=[old, new])), "sales/new")
    assert (got["admitted"], got["reason"]) == (True, "Admitted")
    assert got["admission"]["podSetAssignments"][0]["flavors"] == {"cpu": "two", "memory": "two"}


def test_workload_slice_preemption_does_not_fit_in_the_original_workload_resource_flavor(client) -> None:  # type: ignore[no-untyped-def]
    """``flavorassigner_test.go`` "workload slice preemption does not fit in the original workload
    resource flavor": the old slice is on ``one`` (500m cpu): the 1 cpu more is past its maximum
    capacity, and ``two`` is not the original flavor: no fit, with Go's reasons."""
    flavors = (fq("one", ("cpu", "500m"), ("memory", "1Gi")), fq("two", ("cpu", "4"), ("memory", "2Gi")))
    old = old_slice("old", 1, "2", "one", "2", memory=("10Mi", "10Mi"))
    new = new_slice("new", 1, {"cpu": "3", "memory": "10Mi"}, "sales/old")
    got = one(post(client, request(objects(*flavors), workloads=[old, new])), "sales/new")
    assert (got["admitted"], got["reason"]) == (False, "InsufficientQuota")
    assert got["quotaReservedReason"] == "ExceedsMaxQuota"
    msg = got["message"]
    assert ("insufficient quota for cpu in flavor one, previously considered podsets requests (0) + current podset "
            "request (1) > maximum capacity (500m)") in msg, msg
    assert "could not assign two flavor since the original workload is assigned: one" in msg, msg


# -- rules -----------------------------------------------------------------------------------------
def test_a_replacing_slice_asks_the_quota_only_for_the_difference(client) -> None:  # type: ignore[no-untyped-def]
    """``findFlavorForPodSets``: 12 cpu of quota, the old slice holds 10; the new slice of 12 asks
    for 2 more and is admitted (as a Workload of its own it would need 12 with 10 taken: no fit)."""
    old = old_slice("old", 10, "1", "default", "10")
    new = new_slice("new", 12, {"cpu": "1"}, "sales/old")
    alone = new_slice("alone", 12, {"cpu": "1"}, None)
    out = post(client, request(objects(fq("default", ("cpu", "12"))), workloads=[old, new]))
    assert one(out, "sales/new")["reason"] == "Admitted"
    assert one(out, "sales/old")["reason"] == "Finished"
    out = post(client, request(objects(fq("default", ("cpu", "12"))), workloads=[old, alone]))
    assert one(out, "sales/alone")["reason"] == "InsufficientQuota"
    assert one(out, "sales/old")["reason"] == "AlreadyAdmitted"


def test_a_replacing_slice_places_only_its_new_pods(client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The Job keeps the old slice's pods: the new slice's pods are those past its count (here
    pods 10 and 11), and the answer counts those against the nodes."""
    import app.kueue.admit as kueue_admit

    seen: list[Any] = []
    real = kueue_admit.run_session
    monkeypatch.setattr(kueue_admit, "run_session", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    old = old_slice("old", 10, "1", "default", "10")
    new = new_slice("new", 12, {"cpu": "1"}, "sales/old")
    out = post(client, request(objects(fq("default", ("cpu", "12"))), workloads=[old, new]))
    assert one(out, "sales/new")["reason"] == "Admitted"
    assert sorted(b.pod for b in seen[-1].decision.bindings) == ["sales/new-main-10", "sales/new-main-11"]


def test_a_slice_naming_no_admitted_workload_of_its_cluster_queue_asks_for_all(client) -> None:  # type: ignore[no-untyped-def]
    """``ReplacedWorkloadSlice``: the named slice must be admitted in the new one's ClusterQueue
    and in its namespace; else the new slice is a Workload like any other."""
    old = old_slice("old", 10, "1", "default", "10")
    for target in ("sales/missing", "other/old"):
        new = new_slice("new", 12, {"cpu": "1"}, target)
        out = post(client, request(objects(fq("default", ("cpu", "12"))), workloads=[old, new]))
        assert one(out, "sales/new")["reason"] == "InsufficientQuota", target
        assert one(out, "sales/old")["reason"] == "AlreadyAdmitted", target


def test_with_the_gate_off_the_replacement_annotation_is_not_read(client) -> None:  # type: ignore[no-untyped-def]
    """``ReplacedWorkloadSlice`` returns nothing unless ``ElasticJobsViaWorkloadSlices`` is on."""
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "featureGates": {"ElasticJobsViaWorkloadSlices": False}}  # fmt: skip
    old = old_slice("old", 10, "1", "default", "10")
    new = new_slice("new", 12, {"cpu": "1"}, "sales/old")
    out = post(client, request(objects(fq("default", ("cpu", "12")), extra=(config,)), workloads=[old, new]))
    assert one(out, "sales/new")["reason"] == "InsufficientQuota"


# -- the job reconciler: EnsureWorkloadSlices ------------------------------------------------------
def _elastic(parallelism: int, generation: int = 2) -> dict[str, Any]:
    """An elastic batch/v1 Job ``train`` in ``ml`` (8 GPUs a pod), running (not suspended)."""
    from tests.test_kueue_jobs import job

    j = job("train", parallelism, annotations={"kueue.x-k8s.io/elastic-job": "true"})
    j["spec"]["suspend"] = False
    j["metadata"]["generation"] = generation
    return j


def _slice_of(job_obj: dict[str, Any], name: str, count: int, admitted: bool) -> dict[str, Any]:
    """The Job's Workload ``name`` of ``count`` pods, its controller the Job; ``admitted``: quota
    reserved and Admitted on flavor ``f`` (8 GPUs and 1 cpu a pod)."""
    from tests.test_kueue_jobs import owned_workload

    w = owned_workload(name, "train", job_obj["metadata"]["uid"], ns="ml", queue="lq", count=count,
                       template=job_obj["spec"]["template"])  # fmt: skip
    w["metadata"]["annotations"] = {"kueue.x-k8s.io/workload-slice-name": name}
    if admitted:
        w["status"] = {"admission": adm("cq", psa("main", ("cpu", "f", str(count)), ("nvidia.com/gpu", "f", str(8 * count)),
                                                  count=count)),
                       "conditions": [{"type": t, "status": "True", "lastTransitionTime": "2026-11-23T10:30:00Z",
                                       "reason": t, "message": ""} for t in ("QuotaReserved", "Admitted", "PodsReady")]}  # fmt: skip
    return w


def _post_jobs(client: Any, objs: list[dict[str, Any]]) -> dict[str, Any]:
    from tests.test_admissions import body

    return post(client, body([], objs))


def test_an_elastic_job_scaled_up_gets_a_new_slice_replacing_its_admitted_one(client) -> None:  # type: ignore[no-untyped-def]
    """``EnsureWorkloadSlices`` (one slice, admitted, the Job scaled up from 2 to 3 pods) then
    ``prepareWorkloadSlice``: Kueue creates a new Workload named with the Job's generation,
    annotated as the old slice's replacement; 24 GPUs of quota, the old slice holds 16: the new
    one asks for 8 more, is admitted, and the old one is Finished."""
    from app.kueue import jobs
    from tests.test_kueue_jobs import queues

    j = _elastic(3)
    old = _slice_of(j, "train-slice-1", 2, admitted=True)
    out = _post_jobs(client, queues(24) + [j, old])
    new_key = f"ml/{jobs.workload_name('train', 'uid-train', 'Job', 'batch', '2')}"
    got = one(out, new_key)
    assert (got["reason"], got["admission"]["podSetAssignments"][0]["count"]) == ("Admitted", 3), got
    assert one(out, "ml/train-slice-1")["reason"] == "Finished"


def test_an_elastic_jobs_pending_slice_takes_the_jobs_new_count(client) -> None:  # type: ignore[no-untyped-def]
    """``EnsureWorkloadSlices``: a slice holding no quota has its counts set to the Job's
    (``ApplyPodSetCounts``): one Workload, of 3 pods."""
    from tests.test_kueue_jobs import queues

    j = _elastic(3)
    pending = _slice_of(j, "train-slice-1", 2, admitted=False)
    out = _post_jobs(client, queues(24) + [j, pending])
    assert [(w["workload"], w["reason"]) for w in out["workloads"]] == [("ml/train-slice-1", "Admitted")]
    assert one(out, "ml/train-slice-1")["admission"]["podSetAssignments"][0]["count"] == 3


def test_an_elastic_job_with_its_slices_count_keeps_that_slice(client) -> None:  # type: ignore[no-untyped-def]
    """``EnsureWorkloadSlices``: the same counts: the admitted slice is the Job's, no new one."""
    from tests.test_kueue_jobs import queues

    j = _elastic(2)
    old = _slice_of(j, "train-slice-1", 2, admitted=True)
    out = _post_jobs(client, queues(24) + [j, old])
    assert [(w["workload"], w["reason"]) for w in out["workloads"]] == [("ml/train-slice-1", "AlreadyAdmitted")]


# -- found by a review against Go (session 48) -----------------------------------------------------
RF = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}, "spec": {}}
ONE = {"now": "2026-11-23T10:30:00Z", "kueueCycles": 1}

def cohort_objs(cq_cpu: str, cq2_cpu: str, **cq2_spec: Any) -> list[dict[str, Any]]:
    return [roomy_node("n1", ("cpu",)), namespace(NS), RF,
            cq("cq", [fq("default", ("cpu", cq_cpu), ("memory", "0"))], cohort="co"),
            cq("cq2", [fq("default", ("cpu", cq2_cpu), ("memory", "10Gi"))], cohort="co", **cq2_spec),
            lq("main", NS, "cq"), lq("two", NS, "cq2")]

def test_a_second_slice_replacing_the_same_one_asks_for_all_it_needs(client) -> None:  # type: ignore[no-untyped-def]
    """Once a slice replaced the old one, the old one is a target of this cycle and then out of Kueue's
    cache: a second slice naming it overlaps (skipped) and later asks for all it needs."""
    old = old_slice("old", 10, "1", "default", "10")
    n1 = new_slice("n1", 12, {"cpu": "1"}, "sales/old")
    n2 = new_slice("n2", 12, {"cpu": "1"}, "sales/old"); n2["metadata"]["creationTimestamp"] = at(5)
    out = post(client, request(objects(fq("default", ("cpu", "14"))), workloads=[old, n1, n2]))
    assert one(out, "sales/n1")["reason"] == "Admitted"
    assert one(out, "sales/n2")["reason"] != "Admitted"      # Go: n1 holds 12 of 14

def test_after_the_replacement_the_new_slice_holds_the_whole_quota(client) -> None:  # type: ignore[no-untyped-def]
    """From the next cycle Kueue's cache has the new slice at its whole usage and the old one gone: a
    reclaiming preemptor takes the new slice."""
    old = old_slice("old", 10, "1", "default", "10")
    new = new_slice("new", 12, {"cpu": "1"}, "sales/old")
    w = wl("w", NS, ps("main", 1, {"memory": "1Gi"}), queue="two", created=at(1))
    p = wl("p", NS, ps("main", 8, {"cpu": "1"}), queue="two", created=at(2))
    out = post(client, request(cohort_objs("4", "8", preemption={"reclaimWithinCohort": "Any"}),
                               workloads=[old, new, w, p]))
    assert one(out, "sales/old")["reason"] == "Finished"
    assert [v["workload"] for v in one(out, "sales/p")["preemptions"]] == ["sales/new"]   # Python: ["sales/old"]

def test_a_replaced_slice_an_earlier_preemptor_targets_is_an_overlap(client) -> None:  # type: ignore[no-untyped-def]
    """``getInitialAssignments`` makes the replaced slice a target of the new one: another preemptor's
    target first, the new slice overlaps and is assigned again without it (NoFit)."""
    old = old_slice("old", 10, "1", "default", "10")
    new = new_slice("new", 12, {"cpu": "1"}, "sales/old")
    p = wl("p", NS, ps("main", 8, {"cpu": "1"}), queue="two", created=at(2))
    out = post(client, request(cohort_objs("4", "8", preemption={"reclaimWithinCohort": "Any"}),
                               workloads=[old, new, p], options=ONE))
    assert [v["workload"] for v in one(out, "sales/p")["preemptions"]] == ["sales/old"]
    assert one(out, "sales/new")["reason"] != "Admitted"    # Go: overlap -> recompute -> NoFit

def test_a_later_head_of_the_cycle_fits_without_the_replaced_slice(client) -> None:  # type: ignore[no-untyped-def]
    """``processEntry`` puts the replaced slice into ``preemptedWorkloads``: a later head of the cycle
    fits without its usage."""
    old = old_slice("old", 10, "1", "default", "10")
    new = new_slice("new", 12, {"cpu": "1"}, "sales/old")
    p = wl("p", NS, ps("main", 5, {"cpu": "1"}), queue="two", created=at(2))
    out = post(client, request(cohort_objs("12", "4"), workloads=[old, new, p], options=ONE))
    assert one(out, "sales/p")["reason"] == "Admitted"      # Go's fits() removes preemptedWorkloads (old)

def test_a_resource_the_old_slice_lacks_has_no_original_flavor(client) -> None:  # type: ignore[no-untyped-def]
    """``findFlavorForPodSets``: a resource the old slice has no flavor for matches no flavor ("...is
    assigned: ")."""
    old = old_slice("old", 2, "1", "default", "2")
    new = new_slice("new", 3, {"cpu": "1", "memory": "1Gi"}, "sales/old")
    out = post(client, request(objects(fq("default", ("cpu", "12"), ("memory", "10Gi"))), workloads=[old, new]))
    got = one(out, "sales/new")
    assert got["reason"] != "Admitted"
    assert "could not assign default flavor since the original workload is assigned: " in got["message"]

def _two(name: str, order: str, a: tuple[int, str], b: tuple[int, str], admission: dict[str, Any] | None = None,
         replaces: str | None = None) -> dict[str, Any]:
    sets = {"a": ps("a", a[0], {"cpu": a[1]}), "b": ps("b", b[0], {"cpu": b[1]})}
    w = wl(name, NS, *[sets[c] for c in order], queue="main", admission=admission,
           admitted_at=at(0) if admission else None)
    if replaces:
        w["metadata"]["annotations"] = {SLICE: replaces}
    return w

def test_podsets_in_another_order_are_checked_by_position_and_charged_by_name(client) -> None:  # type: ignore[no-untyped-def]
    """The flavor check and the request's difference go by position (``TotalRequests[psID]``), the
    usage taken by name (``findOldPodSetRequest``)."""
    old = _two("old", "ab", (1, "4"), (1, "1"),
               admission=adm("cq", psa("a", ("cpu", "default", "4")), psa("b", ("cpu", "default", "1"))))
    new = _two("new", "ba", (2, "4"), (2, "1"), replaces="sales/old")
    out = post(client, request(objects(fq("default", ("cpu", "12"))), workloads=[old, new]))
    assert one(out, "sales/new")["reason"] != "Admitted"   # Go: a's check is 5 + 1 + 7 = 13 > 12

def test_the_old_slice_counts_its_requests_after_its_reclaimable_pods(client) -> None:  # type: ignore[no-untyped-def]
    """``totalRequestsFromAdmission``: the old slice's requests after its reclaimable pods are what the
    new one's difference is to."""
    old = old_slice("old", 10, "1", "default", "10")
    old["status"]["reclaimablePods"] = [{"name": "main", "count": 4}]
    new = new_slice("new", 12, {"cpu": "1"}, "sales/old")
    out = post(client, request(objects(fq("default", ("cpu", "10"))), workloads=[old, new]))
    assert one(out, "sales/new")["reason"] != "Admitted"   # Go: 6 held + (12 - 6) > 10

def test_a_slice_admitted_in_an_earlier_cycle_of_the_answer_is_replaced(client) -> None:  # type: ignore[no-untyped-def]
    """A slice admitted in an earlier cycle of this answer is in Kueue's cache for the next: the new
    one replaces it."""
    old = new_slice("old", 10, {"cpu": "1"}, None)
    new = new_slice("new", 12, {"cpu": "1"}, "sales/old"); new["metadata"]["creationTimestamp"] = at(5)
    out = post(client, request(objects(fq("default", ("cpu", "14"))), workloads=[old, new]))
    assert one(out, "sales/new")["reason"] == "Admitted"
    assert one(out, "sales/old")["reason"] == "Finished"

def test_an_elastic_jobs_pending_replacement_is_kept_beside_its_admitted_slice(client) -> None:  # type: ignore[no-untyped-def]
    """``normalizeActiveSlices``: the admitted slice and its pending replacement both stay; the
    replacement is the job's and is admitted."""
    from tests.test_kueue_jobs import queues
    j = _elastic(3)
    old = _slice_of(j, "train-slice-1", 2, admitted=True)
    new = _slice_of(j, "train-slice-2", 3, admitted=False)
    new["metadata"]["annotations"] = {SLICE: "ml/train-slice-1", "kueue.x-k8s.io/workload-slice-name": "train-slice-1"}
    new["metadata"]["creationTimestamp"] = "2026-11-23T10:10:00Z"
    out = _post_jobs(client, queues(24) + [j, old, new])
    assert one(out, "ml/train-slice-2")["reason"] == "Admitted"
    assert one(out, "ml/train-slice-1")["reason"] == "Finished"

def test_an_elastic_job_whose_slices_all_finished_gets_a_new_workload(client) -> None:  # type: ignore[no-untyped-def]
    """``EnsureWorkloadSlices`` with no unfinished slice: Kueue creates one, named with the job's
    generation."""
    from app.kueue import jobs
    from tests.test_kueue_jobs import queues
    j = _elastic(3, generation=3)
    old = _slice_of(j, "train-slice-1", 3, admitted=True)
    old["status"]["conditions"].append({"type": "Finished", "status": "True", "reason": "OutOfSync",
                                        "lastTransitionTime": "2026-11-23T10:30:00Z", "message": ""})
    out = _post_jobs(client, queues(24) + [j, old])
    assert f"ml/{jobs.workload_name('train', 'uid-train', 'Job', 'batch', '3')}" in [w["workload"] for w in out["workloads"]]

def test_the_finished_message_names_the_jobs_uid(client) -> None:  # type: ignore[no-untyped-def]
    """``ConstructWorkload`` labels the new slice ``kueue.x-k8s.io/job-uid``;
    ``replaceWorkloadSlice``'s message names it."""
    from tests.test_kueue_jobs import queues
    j = _elastic(3)
    out = _post_jobs(client, queues(24) + [j, _slice_of(j, "train-slice-1", 2, admitted=True)])
    assert "JobUID: uid-train)" in one(out, "ml/train-slice-1")["message"]


def test_an_elastic_jobs_admitted_slice_scaled_down_holds_less_quota(client) -> None:  # type: ignore[no-untyped-def]
    """``EnsureWorkloadSlices`` scaled down: Kueue lowers the admitted slice's counts in place
    (``ApplyPodSetCounts``) and its quota follows (``totalRequestsFromAdmission``: the admission's
    usage scaled to the new count). The slice held 16 of 24 GPUs; at one pod it holds 8, and a
    Workload of two 8-GPU pods fits beside it (it did not before the scale-down)."""
    from tests.test_admissions import pod_set, workload
    from tests.test_kueue_jobs import queues

    other = workload("other", pod_set(count=2), version="v1beta2")
    before = _post_jobs(client, queues(24) + [(j := _elastic(2)), _slice_of(j, "train-slice-1", 2, admitted=True)]
                        + [other])  # fmt: skip
    assert one(before, "ml/other")["reason"] == "InsufficientQuota"
    after = _post_jobs(client, queues(24) + [(j := _elastic(1)), _slice_of(j, "train-slice-1", 2, admitted=True)]
                       + [other])  # fmt: skip
    assert one(after, "ml/other")["reason"] == "Admitted"
    assert one(after, "ml/train-slice-1")["reason"] == "AlreadyAdmitted"
    assert any("scaled down" in w for w in after["warnings"])
