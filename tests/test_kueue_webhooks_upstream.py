"""Kueue's admission webhooks for the objects ``/v1/admissions`` reads, transcribed:
``pkg/webhooks/clusterqueue_webhook_test.go`` (``TestValidateClusterQueue``,
``TestValidateTotalFlavors``, ``TestValidateTotalCoveredResources``,
``TestValidateFlavorResourceCombinations``), ``pkg/webhooks/cohort_webhook_test.go``
(``TestValidateCohort``) and ``pkg/webhooks/resourceflavor_webhook_test.go``
(``TestValidateResourceFlavor``) of kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``, with the code they test
(``clusterqueue_webhook.go``, ``cohort_webhook.go``, ``resourceflavor_webhook.go``,
``common.go``) and the CRD markers of ``apis/kueue/v1beta2/clusterqueue_types.go``,
``cohort_types.go``, ``resourceflavor_types.go`` (as generated into
``config/components/crd/bases/kueue.x-k8s.io_*.yaml``).

Mapping. Each Go case's object, built as Go's ``utiltestingapi`` wrappers build it
(``MakeClusterQueue``: ``namespaceSelector: {}``, ``queueingStrategy: BestEffortFIFO``,
``flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: TryNextFlavor}``;
``ResourceGroup(flavors...)``: ``coveredResources`` the first flavor's resources, left out when
it has none, as ``omitempty`` does; ``MakeFlavorQuotas(f).Resource(name, nominal,
borrowingLimit, lendingLimit)``: :func:`fq`, a bare ``Resource(name)`` has ``nominalQuota`` 0;
``MakeResourceFlavor``: ``nodeLabels: {}``), in ``kueue.x-k8s.io/v1beta2``, is posted to
``POST /v1/admissions`` as ``objects[0]`` (so every pointer starts ``/objects/0``), followed by
a Node, the Namespace ``default``, a LocalQueue and a Workload asking for 1 cpu (for a Cohort or
a ResourceFlavor, a ClusterQueue using it too), so that the request is complete.

* A case Go's webhook refuses (``wantErr`` not empty): Kueue's API server refuses the object, so
  no cluster holds it; the answer must be a 422 ``application/problem+json`` whose
  ``errors[0].pointer`` is the JSON pointer of Go's first ``field.Error`` path in that object
  (``spec.resourceGroups[0].flavors[1].name`` -> ``/objects/0/spec/resourceGroups/0/flavors/1/name``).
  Where Go's path names a map (``spec.nodeLabels``, ``spec.namespaceSelector.matchLabels``:
  ``ValidateLabels`` reports the map), the pointer of the offending key in it is accepted too.
  Where the CRD's CEL rule refuses the same object first (it runs before the webhook) and reports
  the enclosing object (``flavorFungibility``'s ``preference`` rule), the webhook's path, the
  offending field, is wanted.
* A case Go accepts: the answer is a 200 -- except where the object as Go's builder makes it
  breaks a CRD marker the Go unit test never meets (it calls ``ValidateClusterQueue`` directly,
  without an API server): a resource group without ``coveredResources`` or a flavor without
  ``resources`` (``+required``, ``minItems: 1``), more than 64 flavors or covered resources in
  one group (``maxItems: 64``), a ``concurrentAdmissionPolicy.migration`` without ``mode``
  (``+required``). Those are posted as Go builds them, and the API server's 422 is wanted at the
  CRD's path; and, so that the webhook rule the Go case is about is checked too, a completed copy
  (id ``... (completed)``: one ``cpu`` resource of quota 0; the flavors or resources split over
  groups of at most 64) is posted and must be accepted or refused as Go's webhook decides.
* Extra cases (ids starting ``extra:``) check what the same webhook functions (or CRD rules)
  refuse where Go's tables have no case: they are labelled as not Go's.

``ConcurrentAdmission`` cases: ``validateConcurrentAdmissionPolicy`` runs only with that gate
(alpha, off by default), which ``TestValidateClusterQueue`` turns on; here a Kueue
``Configuration`` with ``featureGates: {ConcurrentAdmission: true}`` is posted with them.
Gangplank does not model the gate (``app/kueue/featuregates.py``: not in ``MODELLED``).

Differences found when transcribed (strict xfails then), most fixed since (Gangplank now
refuses with a 422 at the field what the webhook or CRD refuses: qualified resource names,
``minItems`` / ``maxItems`` of a group's lists, the flavor resources' order, a ``lendingLimit``
without a cohort or parent or above the nominal quota, the totals, ``namespaceSelector`` and
ResourceFlavor labels, taints, a fair-sharing weight in (0, 1n]). Still strict xfails:

* Gangplank refuses (422) what a cluster can hold: a ClusterQueue whose ``onFlavors`` names no
  flavor of its groups, which an update may keep with ``RejectUpdatesToCQWithInvalidOnFlavors``
  off (a what-if's new ClusterQueue is refused on create, which the 422 serves);
* accepted with a warning, as Kueue's own cache and scheduler tests build them: a
  ClusterQueue's ``borrowingLimit`` without ``cohortName`` (and a Cohort's without a parent), a
  resource or a flavor in two resource groups;
* the ``ConcurrentAdmission`` rules with the gate on (the gate is not modelled).

Counts: the 54 Go cases transcribed (all 39 of ``TestValidateClusterQueue``, the 3 + 3 + 3 of the
total tests, ``TestValidateCohort``'s 1, ``TestValidateResourceFlavor``'s 4, 1 of
``TestValidateClusterQueueUpdate``'s 11) are 55 tests ("multiple resource groups" checks two
rules); with the ``(completed)`` and ``extra:`` tests, 72 tests: 60 pass, 12 strict xfails.

Other transcriptions post objects Kueue's API server refuses, as Go's cache and scheduler tests
build them without one (found by checking every Kueue object the other Kueue tests post against
these rules); they rely on Gangplank accepting them, and would fail were it to refuse them:

* a ClusterQueue ``borrowingLimit`` without ``cohortName`` (the CRD rule; ``validateLimit``):
  ``TestSchedule``'s ``sales`` fixture (``Resource("cpu", "50", "0")``, no cohort), so every case
  of tests/test_kueue_scheduler_upstream.py (``test_schedule``, ``test_quota_reserved_reason``)
  and of tests/test_kueue_scheduler_fs_upstream.py (``test_schedule_fair_sharing``,
  ``test_quota_reserved_reason``); tests/test_kueue_scheduling_context_upstream.py
  ``test_first_cycle`` (1 case), ``test_second_schedule`` (2); and
  tests/test_kueue_crd_fields.py ``test_borrowing_limit_without_a_cohort_is_read_and_named``,
  which checks that it is read and named;
* a resource covered by two resource groups (``validateResourceGroups``):
  tests/test_kueue_quota.py ``test_a_resource_two_groups_cover_takes_the_first_groups_flavor_and_is_warned``,
  tests/test_kueue_flavor_assigner_upstream.py ``test_assign_flavors`` "multiple flavors, leader
  worker set, workers request GPU, leader does not request GPU", tests/test_kueue_snapshot_upstream.py
  ``test_cohort_provides_resources`` (a Cohort), tests/test_kueue_scheduler_fs_upstream.py
  "with fair sharing: nominal-first ordering admits workload fitting within nominal" (both tests);
* a flavor in two resource groups: tests/test_kueue_no_fit_reason_upstream.py
  ``test_no_fit_reason`` "flavor spanning multiple resource groups".

Not transcribed:

* ``TestValidateClusterQueueUpdate``, 10 of its 11 cases: ``ValidateClusterQueueUpdate``
  compares the ClusterQueue with its previous version (``concurrentAdmissionPolicy`` immutable;
  legacy invalid ``onFlavors`` tolerated on unrelated updates while
  ``RejectUpdatesToCQWithInvalidOnFlavors``, alpha, is off); ``/v1/admissions`` reads one
  snapshot, with no previous version, and the new objects of those cases are either plain
  (queueingStrategy changes) or refused as on create (``onFlavors`` naming no flavor, checked by
  :func:`test_admission_check_on_flavors_name_flavors_of_the_queue`). Transcribed: "legacy
  cluster queue with invalid onFlavors allows unrelated updates when the feature gate is
  disabled", as what a cluster can hold (:func:`test_a_legacy_invalid_on_flavors_rule_can_be_held`).
* The ``Default`` methods (the ``kueue.x-k8s.io/resource-in-use`` finalizer on ClusterQueues
  and ResourceFlavors): a finalizer changes no admission.
* Each Go case's ``wantDetail`` / ``wantBadValue`` (the error's message and value): Gangplank's
  ``detail`` is its own sentence; only the pointer is compared.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import request, roomy_node
from tests.test_kueue_scheduler_upstream import V2, fq, lq, namespace, wl

OBJ = "/objects/0"
CONFIG = "config.kueue.x-k8s.io/v1beta2"
#: ``featureGates: {ConcurrentAdmission: true}``, as ``TestValidateClusterQueue`` sets it
CONCURRENT_ON = {"apiVersion": CONFIG, "kind": "Configuration", "featureGates": {"ConcurrentAdmission": True}}


def xfail(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, reason=reason)


# -- objects, as Go's wrappers build them ----------------------------------------------------
def rg(*flavors: dict[str, Any]) -> dict[str, Any]:
    """``utiltestingapi.ResourceGroup(flavors...)``: ``coveredResources`` are the first flavor's
    resources (left out when it has none: ``omitempty``); a flavor without resources has no
    ``resources`` key."""
    out: dict[str, Any] = {}
    if flavors[0]["resources"]:
        out["coveredResources"] = [r["name"] for r in flavors[0]["resources"]]
    out["flavors"] = [f if f["resources"] else {"name": f["name"]} for f in flavors]
    return out


def make_cq(*rgs: list[dict[str, Any]], groups: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    """``MakeClusterQueue("cluster-queue")`` with ``ResourceGroup(...)`` per ``rgs`` (or the
    ``groups`` as given) and ``spec`` fields set."""
    s: dict[str, Any] = {"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
                         "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}}  # fmt: skip
    if rgs or groups is not None:
        s["resourceGroups"] = groups if groups is not None else [rg(*g) for g in rgs]
    s.update(spec)
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"}, "spec": s}


def bare_cq(**spec: Any) -> dict[str, Any]:
    """A ``&kueue.ClusterQueue{...}`` literal: only the fields given."""
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"}, "spec": spec}


def make_cohort(*rgs: list[dict[str, Any]], parent: str | None = None, **spec: Any) -> dict[str, Any]:
    s: dict[str, Any] = {"resourceGroups": [rg(*g) for g in rgs]} if rgs else {}
    if parent:
        s["parentName"] = parent
    s.update(spec)
    return {"apiVersion": V2, "kind": "Cohort", "metadata": {"name": "cohort"}, "spec": s}


def make_rf(labels: dict[str, str] | None = None, taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeLabels": dict(labels or {})}
    if taints:
        spec["nodeTaints"] = taints
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "resource-flavor"}, "spec": spec}


def make_flavors(n: int, resource: str = "cpu", prefix: str = "f") -> list[dict[str, Any]]:
    """Go's ``makeFlavors(n)``: ``f000``... each with 1 ``cpu``."""
    return [fq(f"{prefix}{i:03d}", (resource, "1")) for i in range(n)]


def covered_group(resources: list[str], flavor: str = "default") -> dict[str, Any]:
    return {"coveredResources": resources, "flavors": [fq(flavor, *((r, "1") for r in resources))]}


def combinations(n_flavors: int, n_resources: int) -> list[dict[str, Any]]:
    """Go's ``makeFlavorResourceCombinations``: one group, ``res000``... in every flavor."""
    res = [f"res{j:03d}" for j in range(n_resources)]
    return [{"coveredResources": res, "flavors": [fq(f"f{i:03d}", *((r, "1") for r in res)) for i in range(n_flavors)]}]


def chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


# -- the request and the answer --------------------------------------------------------------
def rest(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """What makes the request complete: a Node, the Namespace, a LocalQueue and a Workload of
    1 cpu; for a Cohort or a ResourceFlavor, a ClusterQueue using it."""
    out: list[dict[str, Any]] = [roomy_node("n0", ("cpu", "example.com/gpu")), namespace("default")]
    if obj["kind"] == "ClusterQueue":
        queue = obj["metadata"]["name"]
    else:
        queue = "member"
        flavor = obj["metadata"]["name"] if obj["kind"] == "ResourceFlavor" else "default"
        member = make_cq([fq(flavor, ("cpu", "1"))])
        member["metadata"]["name"] = queue
        if obj["kind"] == "Cohort":
            member["spec"]["cohortName"] = obj["metadata"]["name"]
        out.append(member)
    return out + [lq("lq", "default", queue), wl("w", "default", queue="lq", cpu="1")]


def check(client, obj: dict[str, Any], want: str | tuple[str, ...] | None, extra: tuple[dict, ...] = ()) -> None:  # type: ignore[no-untyped-def]
    """``want`` None: Kueue accepts ``obj``, the answer is a 200. Else the pointer(s), in
    ``obj``, of the field Kueue's API server refuses: a 422 problem whose first error is there."""
    r = client.post("/v1/admissions", json=request([obj, *rest(obj), *extra]))
    if want is None:
        assert r.status_code == 200, r.text
        return
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    wants = (want,) if isinstance(want, str) else want
    assert r.json()["errors"][0]["pointer"] in tuple(OBJ + w for w in wants)


def case(name: str, obj: dict[str, Any], want: str | tuple[str, ...] | None, why: str | None = None) -> Any:
    return pytest.param(obj, want, id=name, marks=xfail(why) if why else ())


RG0 = "/spec/resourceGroups/0"
Q0 = f"{RG0}/flavors/0/resources/0"
ACCEPTS = "Gangplank accepts (200) what Kueue's webhook refuses: "
CRD_ACCEPTS = "Gangplank accepts (200) what Kueue's CRD refuses: "


# -- ClusterQueue: TestValidateClusterQueue, by rule -----------------------------------------
@pytest.mark.parametrize("obj, want", [
    case("built-in resources with qualified names", make_cq([fq("default", ("cpu", "0"))]), None),
    case("extended resources with qualified names", make_cq([fq("default", ("example.com/gpu", "0"))]), None),
    case("invalid resource name", make_cq([fq("default", ("@cpu", "0"))]), f"{RG0}/coveredResources/0"),
])  # fmt: skip
def test_covered_resources_are_qualified_names(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue; validateResourceGroups ->
    validateResourceName (common.go): each ``coveredResources`` entry is a qualified name."""
    check(client, obj, want)


ONE_CPU = [fq("flavor1", ("cpu", "0"))]


@pytest.mark.parametrize("obj, want", [
    case("admissionChecks defined", make_cq(admissionChecksStrategy={"admissionChecks": [{"name": "ac1"}]}), None),
    case("admissionCheckStrategy defined with a valid flavor (completed)",
         make_cq(ONE_CPU, admissionChecksStrategy={"admissionChecks": [{"name": "ac1", "onFlavors": ["flavor1"]}]}), None),
    case("admissionCheckStrategy refers to a flavor that is not in quota",
         make_cq(admissionChecksStrategy={"admissionChecks": [{"name": "ac1", "onFlavors": ["flavor1"]}]}),
         "/spec/admissionChecksStrategy/admissionChecks/0/onFlavors/0"),
])  # fmt: skip
def test_admission_check_on_flavors_name_flavors_of_the_queue(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue; validateAdmissionCheckOnFlavors:
    every ``onFlavors`` entry is a flavor of the ClusterQueue's resource groups
    (``field.NotSupported``)."""
    check(client, obj, want)


@pytest.mark.parametrize("obj, want", [
    case("admissionCheckStrategy defined with a valid flavor",
         make_cq([fq("flavor1")], admissionChecksStrategy={"admissionChecks": [{"name": "ac1", "onFlavors": ["flavor1"]}]}),
         f"{RG0}/coveredResources"),
    case("flavor with qualified names", make_cq([fq("x86")]), f"{RG0}/coveredResources"),
    case("flavor with qualified names (completed)", make_cq([fq("x86", ("cpu", "0"))]), None),
])  # fmt: skip
def test_a_resource_group_covers_resources_and_its_flavors_list_them(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue, the cases whose
    ``MakeFlavorQuotas(f).Obj()`` has no resources: Go's webhook accepts them, the CRD does not
    (``ResourceGroup.coveredResources`` and ``FlavorQuotas.resources`` are ``+required`` with
    ``minItems: 1``): a 422 at ``coveredResources``, the first field missing."""
    check(client, obj, want)


@pytest.mark.parametrize("obj, want", [
    case("flavor quota with negative value", make_cq([fq("x86", ("cpu", "-1"))]), f"{Q0}/nominalQuota"),
    case("flavor quota with zero value", make_cq([fq("x86", ("cpu", "0"))]), None),
    case("flavor quota with borrowingLimit 0", make_cq([fq("x86", ("cpu", "1", "0"))], cohortName="cohort"), None),
    case("flavor quota with negative borrowingLimit", make_cq([fq("x86", ("cpu", "1", "-1"))], cohortName="cohort"),
         f"{Q0}/borrowingLimit"),
    case("flavor quota with lendingLimit 0", make_cq([fq("x86", ("cpu", "1", "", "0"))], cohortName="cohort"), None),
    case("flavor quota with negative lendingLimit", make_cq([fq("x86", ("cpu", "1", "", "-1"))], cohortName="cohort"),
         f"{Q0}/lendingLimit"),
])  # fmt: skip
def test_quotas_and_limits_are_not_negative(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue; validateFlavorQuotas ->
    validateResourceQuantity: ``nominalQuota``, ``borrowingLimit``, ``lendingLimit`` >= 0."""
    check(client, obj, want)


@pytest.mark.parametrize("obj, want", [
    case("in cohort", make_cq(cohortName="prod"), None),
    case("flavor quota with lendingLimit and empty cohort", make_cq([fq("x86", ("cpu", "1", "", "1"))]), f"{Q0}/lendingLimit"),
    case("extra: borrowingLimit and empty cohort (the CRD rule and validateLimit)", make_cq([fq("x86", ("cpu", "1", "1"))]),
         f"{Q0}/borrowingLimit",
         CRD_ACCEPTS + "a borrowingLimit on a ClusterQueue without cohortName (accepted with a warning)"),
])  # fmt: skip
def test_borrowing_and_lending_limits_need_a_cohort(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue; validateLimit (config.hasParent:
    ``cohortName`` set): a ``borrowingLimit`` or ``lendingLimit`` needs a cohort. (For
    ``borrowingLimit`` the CRD's rule on ``ClusterQueueSpec`` refuses first, reporting ``spec``;
    the webhook's path, the offending field, is wanted.)"""
    check(client, obj, want)


@pytest.mark.parametrize("obj, want", [
    case("flavor quota with lendingLimit greater than nominalQuota",
         make_cq([fq("x86", ("cpu", "1", "", "2"))], cohortName="cohort"), f"{Q0}/lendingLimit"),
    case("extra: lendingLimit equal to nominalQuota", make_cq([fq("x86", ("cpu", "1", "", "1"))], cohortName="cohort"), None),
])  # fmt: skip
def test_lending_limit_is_at_most_the_nominal_quota(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue; validateLendingLimit
    (``enforceNominalGreaterThanLending``, ClusterQueues only)."""
    check(client, obj, want)


def test_empty_queueing_strategy_is_supported(client):
    """clusterqueue_webhook_test.go TestValidateClusterQueue "empty queueing strategy is
    supported": ``QueueingStrategy("")`` is left out (``omitempty``); the CRD defaults it to
    BestEffortFIFO."""
    cq = make_cq()
    del cq["spec"]["queueingStrategy"]
    check(client, cq, None)


@pytest.mark.parametrize("obj, want", [
    case("namespaceSelector with invalid labels", make_cq(namespaceSelector={"matchLabels": {"nospecialchars^=@": "bar"}}),
         ("/spec/namespaceSelector/matchLabels", "/spec/namespaceSelector/matchLabels/nospecialchars^=@")),
    case("namespaceSelector with invalid expressions",
         make_cq(namespaceSelector={"matchExpressions": [{"key": "key", "operator": "In"}]}),
         "/spec/namespaceSelector/matchExpressions/0/values"),
])  # fmt: skip
def test_namespace_selector_is_a_valid_label_selector(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue; validateClusterQueueSpec ->
    ``validation.ValidateLabelSelector(spec.namespaceSelector)``."""
    check(client, obj, want)


MULTI = make_cq([fq("alpha", ("cpu", "0"), ("memory", "0")), fq("beta", ("cpu", "0"), ("memory", "0"))],
                [fq("gamma", ("example.com/gpu", "0")), fq("omega", ("example.com/gpu", "0"))])  # fmt: skip
REORDERED = make_cq(groups=[{"coveredResources": ["cpu", "memory"], "flavors": [
    fq("alpha", ("cpu", "0"), ("memory", "0")), fq("beta", ("memory", "0"), ("cpu", "0"))]}])  # fmt: skip


@pytest.mark.parametrize("obj, want", [
    case("multiple resource groups", MULTI, None),
    case("resources in a flavor in different order", REORDERED, f"{RG0}/flavors/1/resources/0/name"),
])  # fmt: skip
def test_flavor_resources_follow_covered_resources_in_order(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue; validateFlavorQuotas: the i-th
    resource of each flavor is the i-th ``coveredResources`` entry (Go reports both resources of
    beta; the first is wanted)."""
    check(client, obj, want)


@pytest.mark.parametrize("obj, want", [
    case("multiple resource groups", MULTI, None),
    case("resource in more than one resource group",
         make_cq([fq("alpha", ("cpu", "0"), ("memory", "0"))], [fq("beta", ("memory", "0"))]),
         "/spec/resourceGroups/1/coveredResources/0",
         ACCEPTS + "memory covered by two resource groups (validateResourceGroups: Duplicate value); accepted with a "
                   "warning"),
    case("flavor in more than one resource group",
         make_cq([fq("alpha", ("cpu", "0")), fq("beta", ("cpu", "0"))], [fq("beta", ("memory", "0"))]),
         "/spec/resourceGroups/1/flavors/0/name",
         ACCEPTS + "flavor beta in two resource groups (validateResourceGroups: Duplicate value)"),
])  # fmt: skip
def test_a_resource_and_a_flavor_are_in_one_resource_group(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue; validateResourceGroups: a resource
    (``coveredResources``) and a flavor (``flavors[].name``) are in at most one group."""
    check(client, obj, want)


@pytest.mark.parametrize("obj, want", [
    case("valid preemption with borrowWithinCohort",
         bare_cq(preemption={"reclaimWithinCohort": "LowerPriority",
                             "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 10}}), None),
    case("existing cluster queue created with older Kueue version that has a nil borrowWithinCohort field",
         bare_cq(preemption={"reclaimWithinCohort": "Never"}), None),
])  # fmt: skip
def test_borrow_within_cohort_needs_reclaim_within_cohort(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue; validatePreemption: only
    reclaimWithinCohort Never with a borrowWithinCohort policy other than Never is refused
    (refused case: tests/test_kueue_quota.py
    ``test_borrow_within_cohort_without_reclaim_is_rejected_as_the_crd_does``)."""
    check(client, obj, want)


def fungibility(borrow: str, preempt: str, preference: str) -> dict[str, Any]:
    return make_cq(flavorFungibility={"whenCanBorrow": borrow, "whenCanPreempt": preempt, "preference": preference})


PREF = "/spec/flavorFungibility/preference"


@pytest.mark.parametrize("obj, want", [
    case("flavorFungibility preference set but whenCanPreempt != TryNextFlavor",
         fungibility("TryNextFlavor", "MayStopSearch", "BorrowingOverPreemption"), PREF),
    case("flavorFungibility preference set but whenCanBorrow != TryNextFlavor",
         fungibility("MayStopSearch", "MayStopSearch", "BorrowingOverPreemption"), PREF),
    case("flavorFungibility preference BorrowingOverPreemption with both TryNextFlavor is valid",
         fungibility("TryNextFlavor", "TryNextFlavor", "BorrowingOverPreemption"), None),
    case("flavorFungibility preference PreemptionOverBorrowing with both TryNextFlavor is valid",
         fungibility("TryNextFlavor", "TryNextFlavor", "PreemptionOverBorrowing"), None),
    case("flavorFungibility preference PreemptionOverBorrowing but whenCanBorrow != TryNextFlavor",
         fungibility("MayStopSearch", "TryNextFlavor", "PreemptionOverBorrowing"), PREF),
])  # fmt: skip
def test_flavor_fungibility_preference_needs_try_next_flavor_both_ways(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue; validateFlavorFungibility (and
    the CRD's rule on FlavorFungibility): a ``preference`` needs ``whenCanBorrow`` and
    ``whenCanPreempt`` both TryNextFlavor."""
    check(client, obj, want)


# -- TestValidateClusterQueueUpdate: what a cluster can hold -----------------------------------
LEGACY = make_cq([fq("alpha", ("cpu", "1"))], admissionChecksStrategy={"admissionChecks": [{"name": "ac1", "onFlavors": ["ghost"]}]})


@pytest.mark.parametrize("obj, want", [
    case("legacy cluster queue with invalid onFlavors allows unrelated updates when the feature gate is disabled",
         LEGACY, None,
         "Gangplank refuses (422 at admissionChecksStrategy/admissionChecks/0/onFlavors/0) a ClusterQueue Kueue's "
         "webhook lets a cluster keep: with RejectUpdatesToCQWithInvalidOnFlavors off (its default), an update keeping "
         "a legacy rule's invalid onFlavors is accepted (validateAdmissionCheckOnFlavorsUpdate)"),
])  # fmt: skip
def test_a_legacy_invalid_on_flavors_rule_can_be_held(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueueUpdate "legacy cluster queue with
    invalid onFlavors allows unrelated updates when the feature gate is disabled": the new
    ClusterQueue of that update (onFlavors ``ghost``, no flavor of its groups), which the
    webhook accepts with ``RejectUpdatesToCQWithInvalidOnFlavors`` off (alpha, its default): a
    cluster upgraded from a Kueue without the onFlavors check holds it, so a snapshot can, and
    Kueue reads it (the check runs for no flavor of the queue). The answer must be a 200."""
    check(client, obj, want)


# -- ConcurrentAdmission (gate on, as TestValidateClusterQueue sets it) ----------------------
def concurrent(mode: str | None, *rgs: list[dict[str, Any]], last: str | None = None, **spec: Any) -> dict[str, Any]:
    """``ConcurrentAdmissionPolicy(mode)`` (None: not called) and ``LastAcceptableFlavorName``
    (which sets mode TryPreferredFlavors when no policy is set); mode "" is left out
    (``omitempty``)."""
    migration: dict[str, Any] = {}
    if mode is None and last is not None:
        mode = "TryPreferredFlavors"
    if mode:
        migration["mode"] = mode
    if last is not None:
        migration["constraints"] = {"lastAcceptableFlavorName": last}
    return make_cq(*rgs, concurrentAdmissionPolicy={"migration": migration}, **spec)


F1 = [fq("flavor1", ("cpu", "1"))]
CA = "/spec/concurrentAdmissionPolicy/migration"
GATE = ("Gangplank does not model the ConcurrentAdmission gate (alpha, off by default; named in a warning) and accepts "
        "(200) what Kueue's webhook refuses with it on: ")  # fmt: skip


@pytest.mark.parametrize("obj, want", [
    case("valid ConcurrentAdmissionPolicy", concurrent("TryPreferredFlavors", F1), None),
    case("ConcurrentAdmissionPolicy with StrictFIFO queueing strategy is invalid",
         concurrent("TryPreferredFlavors", F1, queueingStrategy="StrictFIFO"), "/spec/queueingStrategy",
         GATE + "StrictFIFO with a concurrentAdmissionPolicy"),
    case("ConcurrentAdmissionPolicy with more than one ResourceGroup",
         concurrent("TryPreferredFlavors", F1, [fq("flavor2", ("memory", "1"))]), "/spec/resourceGroups",
         GATE + "two resource groups with a concurrentAdmissionPolicy"),
    case("ConcurrentAdmissionPolicy with more than 16 flavors", concurrent("TryPreferredFlavors", make_flavors(17)),
         f"{RG0}/flavors", GATE + "17 flavors with a concurrentAdmissionPolicy"),
    case("ConcurrentAdmissionPolicy with empty ResourceGroups", concurrent("TryPreferredFlavors"), "/spec/resourceGroups",
         GATE + "no resource group with a concurrentAdmissionPolicy"),
    case("ConcurrentAdmissionPolicy with valid LastAcceptableFlavorName", concurrent(None, F1, last="flavor1"), None),
    case("ConcurrentAdmissionPolicy constraints with RetainFirstAdmission mode is forbidden",
         concurrent("RetainFirstAdmission", F1, last="flavor1"), f"{CA}/constraints",
         GATE + "migration.constraints with mode RetainFirstAdmission"),
    case("ConcurrentAdmissionPolicy constraints with empty migration mode is allowed",
         concurrent("", F1, last="flavor1"), f"{CA}/mode",
         "Gangplank accepts (200) what Kueue's CRD refuses (Go's webhook accepts it: the unit test has no API server): "
         "concurrentAdmissionPolicy.migration without mode (required)"),
    case("ConcurrentAdmissionPolicy with invalid LastAcceptableFlavorName", concurrent(None, F1, last="non-existent-flavor"),
         f"{CA}/constraints/lastAcceptableFlavorName", GATE + "lastAcceptableFlavorName naming no flavor of the queue"),
])  # fmt: skip
def test_concurrent_admission_policy_rules(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateClusterQueue, ConcurrentAdmission cases;
    validateConcurrentAdmissionPolicy (with ``features.ConcurrentAdmission`` on: a Configuration
    turning it on is posted): one resource group of at most 16 flavors, not StrictFIFO,
    ``constraints`` only with mode TryPreferredFlavors (or unset), ``lastAcceptableFlavorName`` a
    flavor of the queue. "constraints with empty migration mode is allowed" is the webhook's
    answer; the CRD requires ``migration.mode``: a 422 there."""
    check(client, obj, want, extra=(CONCURRENT_ON,))


# -- TestValidateTotalFlavors, TestValidateTotalCoveredResources, TestValidateFlavorResourceCombinations
TOO_MANY = "Gangplank accepts (200) what Kueue's API server refuses: "


@pytest.mark.parametrize("obj, want", [
    case("within limit (10 flavors)", make_cq(make_flavors(10)), None),
    case("At limit (256 flavors)", make_cq(make_flavors(256)), f"{RG0}/flavors"),
    case("over limit (257 flavors)", make_cq(make_flavors(257)), f"{RG0}/flavors"),
    case("At limit (256 flavors) (completed)",
         make_cq(groups=[rg(*make_flavors(64, f"r{i}", f"f{i}-")) for i in range(4)]), None),
    case("over limit (257 flavors) (completed)",
         make_cq(groups=[rg(*fl) for fl in [make_flavors(64, f"r{i}", f"f{i}-") for i in range(4)]
                         + [make_flavors(1, "r4", "f4-")]]),
         "/spec/resourceGroups"),
])  # fmt: skip
def test_at_most_256_flavors_in_all_resource_groups(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateTotalFlavors; validateTotalFlavors. Go puts
    every flavor (``makeFlavors(n)``: ``f000``... with 1 cpu) in one group, which the CRD
    refuses above 64 (``flavors`` ``maxItems``); the ``(completed)`` cases spread them over
    groups of 64 (each group its own resource ``r<i>``), so that the webhook's total decides."""
    check(client, obj, want)


RES = [f"res{i:03d}" for i in range(257)]


@pytest.mark.parametrize("obj, want", [
    case("within limit (10 covered resources)", make_cq(groups=[covered_group(RES[:10])]), None),
    case("At limit (256 covered resources)", make_cq(groups=[covered_group(RES[:256])]), f"{RG0}/coveredResources"),
    case("over limit (257 covered resources)", make_cq(groups=[covered_group(RES)]), f"{RG0}/coveredResources"),
    case("At limit (256 covered resources) (completed)",
         make_cq(groups=[covered_group(c, f"f{i}") for i, c in enumerate(chunks(RES[:256], 64))]), None),
    case("over limit (257 covered resources) (completed)",
         make_cq(groups=[covered_group(c, f"f{i}") for i, c in enumerate(chunks(RES, 64))]), "/spec/resourceGroups"),
])  # fmt: skip
def test_at_most_256_covered_resources_in_all_resource_groups(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateTotalCoveredResources;
    validateTotalCoveredResources. Go's ``makeCoveredResources(n)`` is one group covering
    ``res000``... with one flavor ``default``, which the CRD refuses above 64
    (``coveredResources`` / ``resources`` ``maxItems``); the ``(completed)`` cases spread them
    over groups of 64 (flavors ``f<i>``)."""
    check(client, obj, want)


@pytest.mark.parametrize("obj, want", [
    case("within limit (1 flavor × 10 resources = 10)", make_cq(groups=combinations(1, 10)), None),
    case("at limit (8 flavors × 64 resources = 512)", make_cq(groups=combinations(8, 64)), None),
    case("over limit (9 flavors × 64 resources = 576)", make_cq(groups=combinations(9, 64)), RG0),
])  # fmt: skip
def test_at_most_512_flavor_resource_pairs_in_a_resource_group(client, obj, want):
    """clusterqueue_webhook_test.go TestValidateFlavorResourceCombinations;
    validateFlavorResourceCombinations (``makeFlavorResourceCombinations``)."""
    check(client, obj, want)


# -- Cohort: TestValidateCohort --------------------------------------------------------------
@pytest.mark.parametrize("obj, want", [
    case("flavor quota with lendingLimit and empty parent", make_cohort([fq("x86", ("cpu", "1", "", "1"))]),
         f"{Q0}/lendingLimit"),
    case("extra: borrowingLimit and empty parent", make_cohort([fq("x86", ("cpu", "1", "1"))]), f"{Q0}/borrowingLimit",
         ACCEPTS + "a borrowingLimit on a Cohort without parentName (validateLimit: must be nil when parent is empty)"),
    case("extra: lendingLimit with a parent", make_cohort([fq("x86", ("cpu", "1", "", "1"))], parent="root"), None),
    case("extra: lendingLimit above nominalQuota with a parent (no such rule for Cohorts)",
         make_cohort([fq("x86", ("cpu", "1", "", "2"))], parent="root"), None),
])  # fmt: skip
def test_cohort_limits_need_a_parent(client, obj, want):
    """cohort_webhook_test.go TestValidateCohort; validateCohort -> validateResourceGroups ->
    validateLimit (``hasParent``: ``parentName`` set; ``enforceNominalGreaterThanLending`` off
    for Cohorts)."""
    check(client, obj, want)


FAIR = ("/spec/fairSharing", "/spec/fairSharing/weight")  # (Go reports the parent; the weight is the offending field)


@pytest.mark.parametrize("obj, want", [
    case("extra: negative fairSharing weight", make_cohort(fairSharing={"weight": "-1"}), FAIR),
    case("extra: fairSharing weight 1n collapses", make_cohort(fairSharing={"weight": "1n"}), FAIR),
    case("extra: fairSharing weight 0", make_cohort(fairSharing={"weight": "0"}), None),
])  # fmt: skip
def test_fair_sharing_weight_is_zero_or_above_one_nano(client, obj, want):
    """Not in Go's tables: validateFairSharing (common.go), run by both webhooks, reports at
    ``spec.fairSharing``; here on a Cohort."""
    check(client, obj, want)


# -- ResourceFlavor: TestValidateResourceFlavor ----------------------------------------------
NODE_LABELS = "/spec/nodeLabels"


@pytest.mark.parametrize("obj, want", [
    case("empty", make_rf(), None),
    case("valid", make_rf({"foo": "bar"}, [{"key": "spot", "value": "true", "effect": "NoSchedule"}]), None),
    case("invalid label name", make_rf({"@abc": "foo"}), (NODE_LABELS, f"{NODE_LABELS}/@abc")),
    case("invalid label value", make_rf({"foo": "@abc"}), (NODE_LABELS, f"{NODE_LABELS}/foo")),
])  # fmt: skip
def test_resource_flavor_node_labels_are_labels(client, obj, want):
    """resourceflavor_webhook_test.go TestValidateResourceFlavor; ValidateResourceFlavor ->
    ``metavalidation.ValidateLabels(spec.nodeLabels)`` (reported at ``spec.nodeLabels``)."""
    check(client, obj, want)


@pytest.mark.parametrize("obj, want", [
    case("extra: taint key not a label name", make_rf(taints=[{"key": "@spot", "effect": "NoSchedule"}]),
         "/spec/nodeTaints/0/key"),
    case("extra: duplicate taint key and effect",
         make_rf(taints=[{"key": "spot", "value": "a", "effect": "NoSchedule"},
                         {"key": "spot", "value": "b", "effect": "NoSchedule"}]), "/spec/nodeTaints/1"),
    case("extra: same taint key, other effect",
         make_rf(taints=[{"key": "spot", "effect": "NoSchedule"}, {"key": "spot", "effect": "NoExecute"}]), None),
])  # fmt: skip
def test_resource_flavor_taints_are_valid_and_unique(client, obj, want):
    """Not in Go's table: validateNodeTaints (resourceflavor_webhook.go): a taint's key is a
    label name, its value a label value, ``(key, effect)`` unique."""
    check(client, obj, want)
