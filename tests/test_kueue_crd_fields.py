"""Fields a Kueue object's version does not have (app/kueue/crdfields.py): the API server
prunes them (structural schemas), so Kueue never sees them; Gangplank drops them too and
names them in a warning. The field sets are Kueue's Go types' json tags
(``apis/kueue/v1beta1`` and ``v1beta2/*_types.go``)."""

from __future__ import annotations

from app.kueue import crdfields
from tests.test_admissions import body, one, post
from tests.test_kueue_quota import V2, cq, flavor, lq, reasons, wl

V1 = "kueue.x-k8s.io/v1beta1"


def test_v1beta2_cluster_queue_cohort_is_pruned_so_it_borrows_nothing(client):
    """``cohort`` is v1beta1's name (v1beta2: ``cohortName``): in a v1beta2 ClusterQueue it
    is dropped, so the queue is in no cohort and cannot borrow; in v1beta1 it is read."""
    def objs(version: str) -> list:
        a, b = cq("a", {"f": 16}) | {"apiVersion": version}, cq("b", {"f": 16}) | {"apiVersion": version}
        a["spec"]["cohort"] = b["spec"]["cohort"] = "co"
        return [flavor("f"), a, b, lq("lq", "a")]
    big = wl("big", 24)
    v1 = post(client, body([big], objs(V1)))
    assert reasons(v1) == {"ml/big": "Admitted"}
    v2 = post(client, body([big], objs(V2)))
    assert reasons(v2) == {"ml/big": "InsufficientQuota"}
    assert any("ClusterQueue a (kueue.x-k8s.io/v1beta2): /spec/cohort is no field of that version" in n for n in v2["warnings"])


def test_workload_priority_class_fields_of_the_other_version_are_pruned(client):
    """v1beta2 Workloads name their class in ``priorityClassRef``; v1beta1's
    ``priorityClassName`` in a v1beta2 Workload is dropped (and the reverse)."""
    wpc = {"apiVersion": V2, "kind": "WorkloadPriorityClass", "metadata": {"name": "hi"}, "value": 100}
    w2 = wl("w2", 8) | {"apiVersion": V2}
    w2["spec"]["priorityClassName"] = "hi"
    w1 = wl("w1", 8)
    w1["spec"]["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "hi"}
    a = post(client, body([w1, w2], [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq"), wpc]))
    assert one(a, "ml/w1")["priority"] == one(a, "ml/w2")["priority"] == 0
    notes = [n for n in a["warnings"] if "is no field of that version" in n]
    assert len(notes) == 2 and any("/spec/priorityClassName" in n for n in notes)


def test_unknown_fields_at_any_depth_of_kueues_types_are_pruned_and_named(client):
    """A typo anywhere in Kueue's own types (not inside a pod template: another package's
    type, not checked) is dropped and named, with the count past five."""
    q = cq("cq", {"f": 16})
    q["spec"]["bogus"] = 1
    q["spec"]["resourceGroups"][0]["flavors"][0]["resources"][1]["nominalQuta"] = "99"
    w = wl("w", 8)
    w["spec"]["podSets"][0]["template"]["spec"]["bogusPodField"] = 1
    a = post(client, body([w], [flavor("f"), q, lq("lq", "cq")]))
    assert reasons(a) == {"ml/w": "Admitted"}
    note = next(n for n in a["warnings"] if "ClusterQueue cq" in n)
    assert "/spec/bogus, /spec/resourceGroups/0/flavors/0/resources/1/nominalQuta are no fields" in note
    assert not any("bogusPodField" in n for n in a["warnings"])


def test_prune_drops_in_field_name_order_and_keeps_the_envelope():
    o = {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "x", "anything": 1},
         "spec": {"zeta": 1, "clusterQueue": "cq", "alpha": 2}, "extra": True}  # fmt: skip
    assert crdfields.prune(o, "v1beta2", "LocalQueue", "/o") == ["/o/extra", "/o/spec/alpha", "/o/spec/zeta"]
    assert o == {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "x", "anything": 1},
                 "spec": {"clusterQueue": "cq"}}  # fmt: skip
    assert crdfields.prune({"spec": {"x": 1}}, "v1alpha1", "Topology", "/o") == []


def test_the_crds_validation_rules_are_422s(client):
    """``x-kubernetes-validations`` of Kueue's CRDs that one object breaks."""
    from tests.test_admissions import problem, workload

    q = cq("cq", {"f": 16})
    del q["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]
    err = problem(client, body([wl("w", 8)], [flavor("f"), q, lq("lq", "cq")]))
    assert err["pointer"].endswith("/spec/resourceGroups/0/flavors/0/resources")
    assert "flavors must have the same number of resources as the coveredResources" in err["detail"]
    q = cq("cq", {"f": 16}, flavorFungibility={"whenCanBorrow": "MayStopSearch", "preference": "BorrowingOverPreemption"})
    err = problem(client, body([wl("w", 8)], [flavor("f"), q, lq("lq", "cq")]))
    assert err["pointer"].endswith("/spec/flavorFungibility/preference")
    # (the rule sees the CRD's defaults: whenCanPreempt TryNextFlavor when unset)
    ok = cq("cq", {"f": 16}, flavorFungibility={"whenCanBorrow": "TryNextFlavor", "preference": "BorrowingOverPreemption"})
    assert reasons(post(client, body([wl("w", 8)], [flavor("f"), ok, lq("lq", "cq")]))) == {"ml/w": "Admitted"}
    tas = flavor("f") | {"spec": {"topologyName": "default"}}
    assert problem(client, body([wl("w", 8)], [tas, cq("cq", {"f": 16}), lq("lq", "cq")]))["pointer"].endswith("/spec/nodeLabels")
    w = workload("w", priorityClassName="x", priorityClassSource="kueue.x-k8s.io/workloadpriorityclass")
    err = problem(client, body([w], [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]))
    assert err["pointer"] == "/workloads/0/spec/priority" and "priority should not be nil when priorityClassName is set" in err["detail"]


def test_borrowing_limit_without_a_cohort_is_read_and_named(client):
    q = cq("cq", {"f": 16}, borrowing=8)
    a = post(client, body([wl("w", 8)], [flavor("f"), q, lq("lq", "cq")]))
    assert reasons(a) == {"ml/w": "Admitted"}
    assert any("ClusterQueue cq sets a borrowingLimit but no cohort" in n for n in a["warnings"])


def test_fields_kueue_reads_and_gangplank_does_not_are_named(client):
    """app/kueue/unread.py: each set, named with what Kueue would do; the kinds of Kueue's
    other controllers named with what they would change (not as ignored objects)."""
    w = wl("w", 8) | {"apiVersion": V2}
    w["spec"]["preemptionGates"] = [{"name": "g"}]
    w["spec"]["podSets"][0]["topologyRequest"] = {"required": "cloud.com/block", "podsetSliceRequiredTopologyConstraints": [
        {"topology": "cloud.com/rack", "size": 1}]}  # fmt: skip
    w["status"] = {"unhealthyNodes": [{"name": "n1"}], "clusterName": "worker1"}
    q = cq("cq", {"f": 16}, concurrentAdmissionPolicy={"migration": {"mode": "TryPreferredFlavors"}})
    prc = {"apiVersion": V2, "kind": "ProvisioningRequestConfig", "metadata": {"name": "prc"},
           "spec": {"provisioningClassName": "x"}}  # fmt: skip
    ac = {"apiVersion": V2, "kind": "AdmissionCheck", "metadata": {"name": "ac"},
          "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request",
                   "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "prc"}}}  # fmt: skip
    a = post(client, body([w], [flavor("f"), q, lq("lq", "cq"), prc, ac]))
    notes = "\n".join(a["warnings"])
    for what in ("ml/w: spec.preemptionGates", "status.clusterName", "ClusterQueue cq: spec.concurrentAdmissionPolicy", "AdmissionCheck ac: spec.parameters",
                 "ProvisioningRequestConfig prc: the provisioning admission check"):  # fmt: skip
        assert what in notes, what
    assert "ignored objects" not in notes


def test_a_workload_whose_kind_is_no_string_is_a_422(client):
    """(found by fuzzing: the unread-field notes read the kind before the Workload reader)"""
    from tests.test_admissions import problem

    w = wl("w", 8)
    w["kind"] = ["Workload"]
    assert problem(client, body([w], [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]))["pointer"] == "/workloads/0/kind"


def test_the_same_objects_in_another_order_give_the_same_answer_bytes(client):
    """Warnings found while walking the request (pruned fields, unread fields, a class's
    value over spec.priority, a boost refused) do not show the objects' order."""
    import itertools

    wpc = {"apiVersion": V2, "kind": "WorkloadPriorityClass", "metadata": {"name": "hi"}, "value": 100}
    cfg = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": {"PriorityBoost": True}}
    a = wl("a", 8) | {"apiVersion": V2}
    a["spec"] |= {"priority": 5, "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "hi"},
                  "bogus": 1}  # fmt: skip
    b = wl("b", 8)
    b["metadata"] |= {"uid": "u-b", "annotations": {"kueue.x-k8s.io/priority-boost": "x"}}
    b["spec"]["typo"] = 1
    q = cq("cq", {"f": 16})
    q["spec"]["cohrt"] = "x"
    objs = [flavor("f"), q, lq("lq", "cq"), wpc, cfg]
    import copy
    answers = set()
    for wls, rest in itertools.islice(zip(itertools.permutations([a, b]), itertools.cycle([objs, objs[::-1]])), 4):
        r = client.post("/v1/admissions", json=body(copy.deepcopy(list(wls)), copy.deepcopy(rest)))
        assert r.status_code == 200, r.text
        answers.add(r.content)
    assert len(answers) == 1
