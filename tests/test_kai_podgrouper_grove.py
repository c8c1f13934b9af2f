"""KAI's pod-grouper, grove.io/v1alpha1 PodGangSet and PodCliqueSet (``grove_grouper.go``):
the Go tests transcribed (each names its Go test function: the grouper on a pod and its
PodGang, as Go calls ``GetPodGroupMetadata(nil, pod)`` with a fake client holding the
PodGang, or its parse functions on their own), then one test per rule, end to end through
the service with the ``kai`` profile (a pod → its PodClique → the PodCliqueSet; the
PodGang its ``grove.io/podgang`` label names)."""

from __future__ import annotations

import copy

import pytest

from app.errors import InputError
from app.ingest import kaigrouper as kg
from tests.kube import node, pod
from tests.test_kai import kai_queue
from tests.test_kai_podgrouper import KAI_SCHED, _read, decide, decide_in_any_order, jobs, made_podgroups

GG = "pkg/podgrouper/podgrouper/plugins/grove/grove_grouper_test.go"
NS = "test-ns"
TOPO = {kg.GROVE_TOPOLOGY_NAME: "test-topology"}


def gang(spec: dict, *, annotations: dict | None = None, labels: dict | None = None, name: str = "pgs1", uid: str = "1",
         ns: str = NS) -> dict:  # fmt: skip
    meta: dict = {"name": name, "namespace": ns, "uid": uid}
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    return {"kind": "PodGang", "apiVersion": "scheduler.grove.io/v1alpha1", "metadata": meta, "spec": spec}


def pg(name: str, least: int, *pods: str, pack: dict | None = None, ns: str = NS) -> dict:
    """A ``spec.podgroups`` entry."""
    out: dict = {"name": name, "minReplicas": least, "podReferences": [{"namespace": ns, "name": p} for p in pods]}
    if pack is not None:
        out["topologyConstraint"] = {"packConstraint": pack}
    return out


def cfg(name: str, names: list, pack: dict | None = None) -> dict:
    """A ``spec.topologyConstraintGroupConfigs`` entry."""
    out: dict = {"name": name, "podGroupNames": names}
    if pack is not None:
        out["topologyConstraint"] = {"packConstraint": pack}
    return out


def owner_of(o: dict) -> kg.Owner:
    m = o["metadata"]
    return kg.Owner(o["apiVersion"], o["kind"], m["name"], m["uid"], m.get("labels") or {}, m.get("annotations") or {}, o)


NO_TOP = kg.Owner("grove.io/v1alpha1", "PodCliqueSet", "pcs", "u-pcs", {}, {}, {})  # (Go passes nil: nothing merged)


def grove(o: dict, *, pod_name: str = "pod1", labels: dict | None = None, top: kg.Owner = NO_TOP) -> kg.Metadata:
    """``NewGroveGrouper(client, NewDefaultGrouper(...)).GetPodGroupMetadata(nil, pod)``."""
    p = kg.Pod(pod_name, NS, "100", {kg.GROVE_PODGANG_LABEL: o["metadata"]["name"], **(labels or {})}, {})
    return kg.Grouper().grove(top, p, owner_of(o))


def tc(md_or_sg) -> tuple | None:
    t = md_or_sg.topology
    return None if t is None else (t["preferredTopologyLevel"], t["requiredTopologyLevel"], t["topology"])


def shape(md: kg.Metadata) -> list[tuple]:
    return [(sg.name, sg.min_available, sg.parent, tc(sg)) for sg in md.subgroups]


# -- grove_grouper_test.go --------------------------------------------------------------------------
def test_grove_TestGetPodGroupMetadata(monkeypatch) -> None:
    """Three podgroups of 4, 3, 5: minMember 12, the sub-groups in order, priority class
    the PodGang's spec.priorityClassName, queue the pod's label; end to end too (the pod
    in its podgroup's sub-group)."""
    o = gang({"podgroups": [pg("pgs1-pga", 4, *(f"pgs1-pga{i}" for i in range(1, 5))),
                            pg("pgs1-pgb", 3, *(f"pgs1-pgb{i}" for i in range(1, 4))),
                            pg("pgs1-pgc", 5, *(f"pgs1-pgc{i}" for i in range(1, 6)))],
              "priorityClassName": "inference"},
             labels={"test_label": "test_value"}, annotations={"test_annotation": "test_value"})  # fmt: skip
    md = grove(o, pod_name="pgs1-pga1", labels={kg.QUEUE_LABEL: "test_queue"})
    assert md.min_available == 12
    assert [(sg.name, sg.min_available) for sg in md.subgroups] == [("pgs1-pga", 4), ("pgs1-pgb", 3), ("pgs1-pgc", 5)]
    assert (md.priority_class, md.queue) == (kg.INFERENCE, "test_queue")
    # end to end: the PodGroup of the PodGang, owned by it, the pod in pgs1-pga
    p = _gpod("pgs1-pga1", "pgs1", queue="test_queue")
    pgs, labels = made_podgroups([node("a", gpu=8), kai_queue("test_queue", -1), *_owners(), o, p], monkeypatch)
    (made,) = pgs.values()
    assert made["metadata"]["name"] == "pg-pgs1-1" and made["metadata"]["ownerReferences"] == [
        {"apiVersion": "scheduler.grove.io/v1alpha1", "kind": "PodGang", "name": "pgs1", "uid": "1"}]  # fmt: skip
    assert (made["spec"]["minMember"], made["spec"]["priorityClassName"], made["spec"]["queue"]) == (12, "inference", "test_queue")
    assert labels == {"pgs1-pga1": "pgs1-pga"}


def test_grove_TestGetPodGroupMetadata_NestedValueErrors() -> None:
    o = gang({"priorityClassName": "inference", "podgroups": {"x": "1"}},
             labels={"test_label": "test_value"}, annotations={"test_annotation": "test_value"})  # fmt: skip
    with pytest.raises(kg.GrouperError) as e:
        grove(o, pod_name="test")
    assert "failed to get spec.podgroups from PodGang test-ns/pgs1" in str(e.value) and e.value.path == ("spec", "podgroups")


def test_grove_TestParseGroveSubGroup_Success() -> None:
    sg = kg.grove_subgroup({"name": "mysubgroup", "minReplicas": 2, "podReferences": [{"namespace": "ns", "name": "a"},
                                                                                       {"namespace": "ns", "name": "b"}]},
                           0, "ns", "pg", "")  # fmt: skip
    assert (sg.name, sg.min_available, sg.pods) == ("mysubgroup", 2, ("a", "b"))


@pytest.mark.parametrize(("entry", "message"), [
    ({"minReplicas": 1, "podReferences": [{"namespace": "ns", "name": "p"}]}, "missing required 'name' field"),
    ({"name": "sg", "podReferences": [{"namespace": "ns", "name": "p"}]}, "missing required 'minReplicas' field"),
    ({"name": "sg", "minReplicas": 1}, "missing required 'podReferences' field"),
])  # fmt: skip
def test_grove_TestParseGroveSubGroup_MissingFields(entry: dict, message: str) -> None:
    with pytest.raises(kg.GrouperError) as e:
        kg.grove_subgroup(entry, 0, "ns", "gang", "")
    assert str(e.value) == message


def test_grove_TestParseGroveSubGroup_NegativeMinAvailable() -> None:
    with pytest.raises(kg.GrouperError) as e:
        kg.grove_subgroup({"name": "sg", "minReplicas": -1, "podReferences": [{"namespace": "ns"}]}, 1, "ns", "gang", "")
    assert str(e.value) == "invalid 'minReplicas' field. Must be greater than 0"


def test_grove_TestParseGroveSubGroup_InvalidPodReference() -> None:
    with pytest.raises(kg.GrouperError) as e:
        kg.grove_subgroup({"name": "sg", "minReplicas": 1, "podReferences": ["notamap"]}, 2, "ns", "gg", "")
    assert str(e.value) == "invalid spec.podgroup[2].podReferences[0] in PodGang ns/gg"


def test_grove_TestParseGroveSubGroup_CrossNamespaceReferenceRejected() -> None:
    entry = {"name": "sg", "minReplicas": 1, "podReferences": [{"namespace": "other-namespace", "name": "victim-pod"}]}
    with pytest.raises(kg.GrouperError) as e:
        kg.grove_subgroup(entry, 0, "attacker-ns", "malicious-gang", "")
    assert "cross-namespace pod reference not allowed" in str(e.value)
    assert e.value.path == ("podReferences", 0, "namespace")


def test_grove_TestParsePodReference_Success() -> None:
    assert kg.pod_reference({"namespace": "ns1", "name": "mypod"}) == ("ns1", "mypod")


def test_grove_TestParseGroveSubGroup_ParsePodReferenceError() -> None:
    with pytest.raises(kg.GrouperError) as e:
        kg.grove_subgroup({"name": "sg", "minReplicas": 1, "podReferences": [{"namespace": "ns"}]}, 1, "ns", "gang", "")
    assert str(e.value) == "failed to parse spec.podgroups[1].podreferences[0] from PodGang ns/gang. Err: missing required 'name' field"


@pytest.mark.parametrize(("ref", "message"), [
    ({"name": "pod"}, "missing required 'namespace' field"),
    ({"namespace": "ns"}, "missing required 'name' field"),
])  # fmt: skip
def test_grove_TestParsePodReference_MissingFields(ref: dict, message: str) -> None:
    with pytest.raises(kg.GrouperError) as e:
        kg.pod_reference(ref)
    assert str(e.value) == message


def test_grove_TestGetPodGroupMetadata_WithTopologyHierarchy() -> None:
    o = gang({"topologyConstraint": {"packConstraint": {"preferred": "rack", "required": "zone"}},
              "topologyConstraintGroupConfigs": [cfg("group1", ["pg1", "pg2"], {"preferred": "node", "required": "rack"})],
              "podgroups": [pg("pg1", 2, "pod1", pack={"preferred": "node", "required": ""}),
                            pg("pg2", 3, "pod2", pack={"preferred": "", "required": "node"})]},
             annotations=TOPO)  # fmt: skip
    md = grove(o)
    assert tc(md) == ("rack", "zone", "test-topology")
    assert shape(md) == [("group1", 0, None, ("node", "rack", "test-topology")),
                         ("pg1", 2, "group1", ("node", "", "test-topology")),
                         ("pg2", 3, "group1", ("", "node", "test-topology"))]  # fmt: skip
    assert md.min_available == 5  # (the children's sum only)


def test_grove_TestGetPodGroupMetadata_WithoutTopologyConstraintGroupConfigs() -> None:
    o = gang({"podgroups": [pg("pg1", 2, "pod1", pack={"preferred": "node"}), pg("pg2", 3, "pod2", pack={"required": "rack"})]},
             annotations=TOPO)  # fmt: skip
    md = grove(o)
    assert md.topology["topology"] == ""
    assert shape(md) == [("pg1", 2, None, ("node", "", "test-topology")), ("pg2", 3, None, ("", "rack", "test-topology"))]
    assert md.min_available == 5


def test_grove_TestGetPodGroupMetadata_MultipleParentGroups() -> None:
    o = gang({"topologyConstraintGroupConfigs": [cfg("group1", ["pg1", "pg2"], {"preferred": "rack"}),
                                                 cfg("group2", ["pg3"], {"required": "zone"})],
              "podgroups": [pg("pg1", 1, "pod1"), pg("pg2", 2, "pod2"), pg("pg3", 3, "pod3")]}, annotations=TOPO)  # fmt: skip
    md = grove(o)
    assert md.topology["topology"] == ""
    assert [(sg.name, sg.min_available, sg.parent) for sg in md.subgroups] == [
        ("group1", 0, None), ("group2", 0, None), ("pg1", 1, "group1"), ("pg2", 2, "group1"), ("pg3", 3, "group2")]  # fmt: skip


def test_grove_TestGetPodGroupMetadata_MixedParenting() -> None:
    o = gang({"topologyConstraintGroupConfigs": [cfg("group1", ["pg1"])],
              "podgroups": [pg("pg1", 2, "pod1"), pg("pg2", 3, "pod2")]}, annotations=TOPO)  # fmt: skip
    md = grove(o)
    assert md.topology["topology"] == ""
    assert [(sg.name, sg.parent) for sg in md.subgroups] == [("group1", None), ("pg1", "group1"), ("pg2", None)]


def test_grove_TestGetPodGroupMetadata_EmptyPodGroupNames() -> None:
    o = gang({"topologyConstraintGroupConfigs": [cfg("group1", []), cfg("group2", ["pg1"])],
              "podgroups": [pg("pg1", 2, "pod1")]}, annotations=TOPO)  # fmt: skip
    md = grove(o)
    assert md.topology["topology"] == ""
    assert [(sg.name, sg.parent) for sg in md.subgroups] == [("group2", None), ("pg1", "group2")]


def test_grove_TestGetPodGroupMetadata_MissingTopologyConstraints() -> None:
    o = gang({"topologyConstraintGroupConfigs": [cfg("group1", ["pg1"])], "podgroups": [pg("pg1", 2, "pod1")]}, annotations=TOPO)
    md = grove(o)
    assert tc(md) == ("", "", "")
    assert [tc(sg) for sg in md.subgroups] == [None, None]


def test_grove_TestGetPodGroupMetadata_NilTopologyConstraintInConfig() -> None:
    o = gang({"topologyConstraintGroupConfigs": [{**cfg("group1", ["pg1"]), "topologyConstraint": None}],
              "podgroups": [pg("pg1", 2, "pod1")]}, annotations=TOPO)  # fmt: skip
    md = grove(o)
    assert md.topology["topology"] == "" and tc(md.subgroups[0]) is None


def test_grove_TestGetPodGroupMetadata_NilTopologyConstraintInPodGroup() -> None:
    o = gang({"podgroups": [{**pg("pg1", 2, "pod1"), "topologyConstraint": None}]}, annotations=TOPO)
    md = grove(o)
    assert md.topology["topology"] == "" and tc(md.subgroups[0]) is None


def test_grove_TestGetPodGroupMetadata_InvalidTopologyConstraintGroupConfigsType() -> None:
    o = gang({"topologyConstraintGroupConfigs": {"invalid": "type"}, "podgroups": [pg("pg1", 2, "pod1")]}, annotations=TOPO)
    with pytest.raises(kg.GrouperError) as e:
        grove(o)
    assert "failed to parse 'topologyConstraintGroupConfigs' field" in str(e.value)
    assert e.value.path == ("spec", "topologyConstraintGroupConfigs")


def test_grove_TestGetPodGroupMetadata_ConfigReferencesNonexistentPodGroup() -> None:
    o = gang({"topologyConstraintGroupConfigs": [cfg("group1", ["pg1", "pg2"])], "podgroups": [pg("pg1", 2, "pod1")]},
             annotations=TOPO)  # fmt: skip
    md = grove(o)
    assert md.topology["topology"] == ""
    assert [(sg.name, sg.parent) for sg in md.subgroups] == [("group1", None), ("pg1", "group1")]


@pytest.mark.parametrize(("case", "pack", "expected"), [
    ("TestGetPodGroupMetadata_PodGangPreferredOnly", {"preferred": "rack"}, ("rack", "", "test-topology")),
    ("TestGetPodGroupMetadata_PodGangRequiredOnly", {"required": "zone"}, ("", "zone", "test-topology")),
])  # fmt: skip
def test_grove_podgang_pack_constraint(case: str, pack: dict, expected: tuple) -> None:
    md = grove(gang({"topologyConstraint": {"packConstraint": pack}, "podgroups": [pg("pg1", 2, "pod1")]}, annotations=TOPO))
    assert tc(md) == expected and len(md.subgroups) == 1, case


def test_grove_TestGetPodGroupMetadata_ParentGroupBothTopologies() -> None:
    o = gang({"topologyConstraintGroupConfigs": [cfg("group1", ["pg1"], {"preferred": "rack", "required": "zone"})],
              "podgroups": [pg("pg1", 2, "pod1")]}, annotations=TOPO)  # fmt: skip
    md = grove(o)
    assert md.topology["topology"] == ""
    assert shape(md) == [("group1", 0, None, ("rack", "zone", "test-topology")), ("pg1", 2, "group1", None)]


def test_grove_TestGetPodGroupMetadata_PodGroupBothTopologies() -> None:
    md = grove(gang({"podgroups": [pg("pg1", 2, "pod1", pack={"preferred": "node", "required": "rack"})]}, annotations=TOPO))
    assert md.topology["topology"] == ""
    assert shape(md) == [("pg1", 2, None, ("node", "rack", "test-topology"))]


def test_grove_TestGetPodGroupMetadata_ComplexHierarchyMixedTopologies() -> None:
    o = gang({"topologyConstraint": {"packConstraint": {"preferred": "cluster", "required": "datacenter"}},
              "topologyConstraintGroupConfigs": [cfg("group1", ["pg1", "pg2"], {"preferred": "rack", "required": "zone"}),
                                                 cfg("group2", ["pg3"], {"preferred": "node"})],
              "podgroups": [pg("pg1", 2, "pod1", pack={"preferred": "node", "required": "rack"}),
                            pg("pg2", 3, "pod2", pack={"required": "node"}),
                            pg("pg3", 1, "pod3", pack={"preferred": "socket"})]}, annotations=TOPO)  # fmt: skip
    md = grove(o)
    t = "test-topology"
    assert tc(md) == ("cluster", "datacenter", t)
    assert shape(md) == [("group1", 0, None, ("rack", "zone", t)), ("group2", 0, None, ("node", "", t)),
                         ("pg1", 2, "group1", ("node", "rack", t)), ("pg2", 3, "group1", ("", "node", t)),
                         ("pg3", 1, "group2", ("socket", "", t))]  # fmt: skip
    assert md.min_available == 6


def test_grove_TestGetPodGroupMetadata_MultipleParentGroupsVariantMix() -> None:
    o = gang({"topologyConstraintGroupConfigs": [cfg("group1", ["pg1"], {"preferred": "rack", "required": "zone"}),
                                                 cfg("group2", ["pg2"], {"preferred": "node"}),
                                                 cfg("group3", ["pg3"], {"required": "socket"})],
              "podgroups": [pg("pg1", 1, "pod1"), pg("pg2", 2, "pod2"), pg("pg3", 3, "pod3")]}, annotations=TOPO)  # fmt: skip
    md = grove(o)
    t = "test-topology"
    assert md.topology["topology"] == ""
    assert shape(md) == [("group1", 0, None, ("rack", "zone", t)), ("group2", 0, None, ("node", "", t)),
                         ("group3", 0, None, ("", "socket", t)), ("pg1", 1, "group1", None), ("pg2", 2, "group2", None),
                         ("pg3", 3, "group3", None)]  # fmt: skip
    assert md.min_available == 6


def test_grove_TestGetPodGroupMetadata_MultiplePodGroupsVariantMix() -> None:
    o = gang({"podgroups": [pg("pg1", 1, "pod1", pack={"preferred": "rack", "required": "zone"}),
                            pg("pg2", 2, "pod2", pack={"preferred": "node"}), pg("pg3", 3, "pod3", pack={"required": "socket"}),
                            pg("pg4", 4, "pod4")]}, annotations=TOPO)  # fmt: skip
    md = grove(o)
    t = "test-topology"
    assert md.topology["topology"] == ""
    assert shape(md) == [("pg1", 1, None, ("rack", "zone", t)), ("pg2", 2, None, ("node", "", t)),
                         ("pg3", 3, None, ("", "socket", t)), ("pg4", 4, None, None)]  # fmt: skip
    assert md.min_available == 10


def test_grove_TestGetPodGroupMetadata_WithTopologyAnnotation() -> None:
    o = gang({"topologyConstraint": {"packConstraint": {"preferred": "rack", "required": "zone"}},
              "topologyConstraintGroupConfigs": [cfg("group1", ["pg1"], {"preferred": "node"})],
              "podgroups": [pg("pg1", 2, "pod1", pack={"required": "socket"})]},
             annotations={kg.GROVE_TOPOLOGY_NAME: "custom-topology"})  # fmt: skip
    md = grove(o)
    assert tc(md) == ("rack", "zone", "custom-topology")
    assert [(sg.name, sg.topology["topology"]) for sg in md.subgroups] == [("group1", "custom-topology"), ("pg1", "custom-topology")]


def test_grove_TestGetPodGroupMetadata_SpecOverridesAnnotation() -> None:
    o = gang({"topologyConstraint": {"packConstraint": {"preferred": "rack", "required": "zone"}},
              "podgroups": [pg("pg1", 1, "pod1")]},
             annotations={kg.GROVE_TOPOLOGY_NAME: "spec-topology", kg.TOPOLOGY: "anno-topology",
                          kg.TOPOLOGY_PREFERRED: "datacenter", kg.TOPOLOGY_REQUIRED: "cluster"})  # fmt: skip
    assert tc(grove(o)) == ("rack", "zone", "spec-topology")


def test_grove_TestGetPodGroupMetadata_ThreeLevelTopologyWithLeafVerification() -> None:
    o = gang({"topologyConstraint": {"packConstraint": {"preferred": "datacenter", "required": "cluster"}},
              "topologyConstraintGroupConfigs": [cfg("group1", ["pg1", "pg2"], {"preferred": "rack", "required": "zone"}),
                                                 cfg("group2", ["pg3"], {"preferred": "node"})],
              "podgroups": [pg("pg1", 2, "pod1", pack={"preferred": "node", "required": "rack"}),
                            pg("pg2", 3, "pod2", pack={"required": "socket"}), pg("pg3", 1, "pod3", pack={"preferred": "socket"}),
                            pg("pg4", 2, "pod4", pack={"preferred": "rack", "required": "node"})]}, annotations=TOPO)  # fmt: skip
    md = grove(o)
    t = "test-topology"
    assert tc(md) == ("datacenter", "cluster", t)
    assert shape(md) == [("group1", 0, None, ("rack", "zone", t)), ("group2", 0, None, ("node", "", t)),
                         ("pg1", 2, "group1", ("node", "rack", t)), ("pg2", 3, "group1", ("", "socket", t)),
                         ("pg3", 1, "group2", ("socket", "", t)), ("pg4", 2, None, ("rack", "node", t))]  # fmt: skip
    assert md.subgroups[5].pods == ("pod4",)
    assert md.min_available == 8


def test_grove_TestGetPodGroupMetadata_EmptyTopology() -> None:
    o = gang({"topologyConstraint": {"packConstraint": {"preferred": "rack"}},
              "podgroups": [pg("pg1", 2, "pod1", pack={"required": "node"})]})  # fmt: skip
    with pytest.raises(kg.GrouperError) as e:
        grove(o)
    assert str(e.value).endswith("topology name cannot be empty when topology constraints are defined")
    assert e.value.path == ("spec", "topologyConstraint", "packConstraint")


# -- rules, on small clusters -------------------------------------------------------------------
def _owners(ns: str = NS) -> list[dict]:
    """A PodCliqueSet ``pcs`` and its PodClique ``pcs-0-w`` (the pods' owner)."""
    pcs = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "pcs", "namespace": ns, "uid": "u-pcs"},
           "spec": {}}  # fmt: skip
    clq = {"apiVersion": "grove.io/v1alpha1", "kind": "PodClique",
           "metadata": {"name": "pcs-0-w", "namespace": ns, "uid": "u-clq", "ownerReferences": [
               {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "name": "pcs", "uid": "u-pcs", "controller": True}]},
           "spec": {}}  # fmt: skip
    return [pcs, clq]


def _gpod(name: str, podgang: str | None, *, queue: str = "q", ns: str = NS, created: str = "2026-11-23T10:00:00Z") -> dict:
    has = podgang is not None  # (None: no grove.io/podgang label)
    p = pod(name, ns=ns, gpu=1, labels={kg.QUEUE_LABEL: queue, **({kg.GROVE_PODGANG_LABEL: podgang} if has else {})},
            extra_spec=KAI_SCHED, created=created)  # fmt: skip
    p["metadata"]["ownerReferences"] = [{"apiVersion": "grove.io/v1alpha1", "kind": "PodClique", "name": "pcs-0-w",
                                         "uid": "u-clq", "controller": True}]  # fmt: skip
    return p


def _disagg(ns: str = NS) -> tuple[dict, list[dict]]:
    """A disaggregated-serving PodGang: ``prefill`` (1 of 1) and ``decode`` (2 of 2) under a
    parent ``rack-pack``, and its three pods."""
    o = gang({"topologyConstraintGroupConfigs": [cfg("rack-pack", ["prefill", "decode"])],
              "podgroups": [pg("prefill", 1, "pf-0", ns=ns), pg("decode", 2, "dc-0", "dc-1", ns=ns)]},
             name="pcs-0", uid="u-gang", ns=ns)  # fmt: skip
    return o, [_gpod(n, "pcs-0", ns=ns) for n in ("pf-0", "dc-0", "dc-1")]


def refused(objs: list[dict]) -> InputError:
    with pytest.raises(InputError) as e:
        _read(objs)
    return e.value


def test_hub_maps_grove_kinds() -> None:
    assert [kg.plugin_of("grove.io/v1alpha1", k) for k in ("PodGangSet", "PodCliqueSet")] == ["grove", "grove"]
    assert kg.plugin_of("grove.io/v1", "PodCliqueSet") == "default" and kg.plugin_of("grove.io/v1alpha1", "PodClique") == "default"


def test_a_grove_gang_is_one_podgroup_placed_all_or_nothing_each_pod_in_its_subgroup(monkeypatch) -> None:
    """The PodGang's PodGroup (minMember 1 + 2) with sub-groups rack-pack (the parent),
    prefill and decode; each pod labelled with the sub-group its podReferences put it in;
    2 GPUs place nothing (each pod was a job of one before), 3 place all."""
    o, pods = _disagg()
    objs = [kai_queue("q", -1), *_owners(), o, *pods]
    pgs, labels = made_podgroups([node("a", gpu=8), *objs], monkeypatch)
    (made,) = pgs.values()
    assert made["spec"]["minMember"] == 3 and made["spec"]["subGroups"] == [
        {"name": "rack-pack"}, {"name": "prefill", "minMember": 1, "parent": "rack-pack"},
        {"name": "decode", "minMember": 2, "parent": "rack-pack"}]  # fmt: skip
    assert labels == {"pf-0": "prefill", "dc-0": "decode", "dc-1": "decode"}
    out = decide([node("a", gpu=2), *objs])
    assert list(jobs(out)) == [f"{NS}/pg-pcs-0-u-gang"] and out["bindings"] == []
    out = decide([node("a", gpu=3), *objs])
    assert len(out["bindings"]) == 3 and not any("ignored objects" in w and "PodGang" in w for w in out["warnings"])
    assert any("scheduler.grove.io/v1alpha1 PodGang (1)" in w and "owner objects read" in w for w in out["warnings"])


def test_a_grove_pod_whose_podgang_is_missing_is_held_unscheduled_with_a_warning() -> None:
    """fetchPodGang fails: pod_controller.go's Reconcile returns before annotating the pod,
    so KAI makes no PodGroup and does not schedule it until the PodGang exists; held as a pod
    of another scheduler (never placed), with a Grove warning naming the PodGang and how to
    add it; another PodGang's pods in the request are scheduled as without it."""
    o, pods = _disagg()
    out = decide([node("a", gpu=8), kai_queue("q", -1), *_owners(), o, *pods, _gpod("p", "nope")])
    assert sorted(b["pod"] for b in out["bindings"]) == sorted(f"{NS}/{n}" for n in ("pf-0", "dc-0", "dc-1"))
    assert "the PodGang a Grove pod names is missing" in jobs(out)[f"{NS}/p"]["message"]
    (w,) = [w for w in out["warnings"] if "PodGang nope (the pod's grove.io/podgang label)" in w]
    assert "kubectl get podgangs.scheduler.grove.io -A -o json" in w and "does not schedule the pod" in w
    assert "owners the snapshot lacks" not in w and "jobs,deployments" not in w


def test_a_grove_pod_with_an_empty_podgang_label_is_a_422_at_the_label() -> None:
    """``grove.io/podgang: ""``: KAI's Get of a PodGang with an empty name fails (no object
    has one), KAI's error as without the label: a 422 at the label."""
    e = refused([node("a", gpu=2), kai_queue("q", -1), *_owners(), _gpod("p", "")])
    assert e.pointer == "/objects/4/metadata/labels/grove.io~1podgang" and "label is empty" in e.detail


def test_the_default_queue_warning_names_the_podgang_for_grove_pods() -> None:
    """A Grove PodGroup's queue is read from the PodGang and the pod (the default grouper on
    the PodGang), never the top owner: the default-queue warning says so."""
    o, pods = _disagg()
    for p in pods:
        del p["metadata"]["labels"][kg.QUEUE_LABEL]
    out = decide([node("a", gpu=8), *_owners(), o, *pods])
    assert any("nor does their PodGang" in w for w in out["warnings"])


def test_a_grove_pod_without_the_podgang_label_is_a_422_at_its_labels() -> None:
    """grove_grouper.go: no grove.io/podgang label is KAI's error (no PodGroup): a 422."""
    e = refused([node("a", gpu=2), kai_queue("q", -1), *_owners(), _gpod("p", None)])
    assert e.pointer == "/objects/4/metadata/labels" and "label for podgang name (key: grove.io/podgang)" in e.detail


def test_a_cross_namespace_pod_reference_is_a_422_at_the_podgang() -> None:
    """parseGroveSubGroup refuses a podReference to a pod of another namespace (namespace
    isolation): KAI makes no PodGroup; a 422 at the reference's namespace, naming the PodGang."""
    o, pods = _disagg()
    o["spec"]["podgroups"][1]["podReferences"][1]["namespace"] = "victim"
    e = refused([node("a", gpu=2), kai_queue("q", -1), *_owners(), o, *pods])
    assert e.pointer == "/objects/4/spec/podgroups/1/podReferences/1/namespace" and e.obj["kind"] == "PodGang"
    assert "cross-namespace pod reference not allowed: pod victim/dc-1" in e.detail


@pytest.mark.parametrize(("mutate", "pointer"), [
    (lambda s: s.__setitem__("podgroups", "x"), "/spec/podgroups"),
    (lambda s: s.__setitem__("podgroups", None), "/spec/podgroups"),
    (lambda s: s["podgroups"].__setitem__(0, 3), "/spec/podgroups/0"),
    (lambda s: s["podgroups"][0].pop("name"), "/spec/podgroups/0"),
    (lambda s: s["podgroups"][0].__setitem__("name", 1), "/spec/podgroups/0/name"),
    (lambda s: s["podgroups"][0].__setitem__("minReplicas", "1"), "/spec/podgroups/0/minReplicas"),
    (lambda s: s["podgroups"][0].__setitem__("minReplicas", 1.0), "/spec/podgroups/0/minReplicas"),
    (lambda s: s["podgroups"][0].__setitem__("minReplicas", 0), "/spec/podgroups/0/minReplicas"),
    (lambda s: s["podgroups"][0].__setitem__("podReferences", {}), "/spec/podgroups/0/podReferences"),
    (lambda s: s["podgroups"][0]["podReferences"][0].pop("namespace"), "/spec/podgroups/0/podReferences/0"),
    (lambda s: s["podgroups"][0]["podReferences"][0].__setitem__("name", None), "/spec/podgroups/0/podReferences/0/name"),
    (lambda s: s["podgroups"][0].__setitem__("topologyConstraint", {"packConstraint": {"required": "rack"}}),
     "/spec/podgroups/0/topologyConstraint/packConstraint"),
    (lambda s: s["podgroups"][0].__setitem__("topologyConstraint", {"packConstraint": {"preferred": None}}),
     "/spec/podgroups/0/topologyConstraint/packConstraint/preferred"),
    (lambda s: s["podgroups"][0].__setitem__("topologyConstraint", "x"), "/spec/podgroups/0/topologyConstraint"),
    (lambda s: s.__setitem__("topologyConstraintGroupConfigs", [1]), "/spec/topologyConstraintGroupConfigs/0"),
    (lambda s: s["topologyConstraintGroupConfigs"][0].pop("name"), "/spec/topologyConstraintGroupConfigs/0"),
    (lambda s: s["topologyConstraintGroupConfigs"][0].__setitem__("podGroupNames", ["prefill", 2]),
     "/spec/topologyConstraintGroupConfigs/0/podGroupNames/1"),
    (lambda s: s["topologyConstraintGroupConfigs"][0].__setitem__("podGroupNames", "prefill"),
     "/spec/topologyConstraintGroupConfigs/0/podGroupNames"),
    (lambda s: s["topologyConstraintGroupConfigs"][0].__setitem__("topologyConstraint", {"packConstraint": {"preferred": "x"}}),
     "/spec/topologyConstraintGroupConfigs/0/topologyConstraint/packConstraint"),
    (lambda s: s.__setitem__("topologyConstraint", {"packConstraint": {"required": 5}}),
     "/spec/topologyConstraint/packConstraint/required"),
    (lambda s: s.__setitem__("priorityClassName", None), "/spec/priorityClassName"),
    (lambda s: s.__setitem__("priorityClassName", 7), "/spec/priorityClassName"),
])  # fmt: skip
def test_podgang_errors_are_a_422_at_the_podgang(mutate, pointer: str) -> None:
    """Every error of grove_grouper.go on the PodGang (fields of the wrong type, missing,
    null where Go's accessor wants a value, minReplicas not positive, a pack constraint with
    no topology name, spec.priorityClassName not a string) are a 422 at the PodGang's field,
    naming it; never a 5xx (a sub-group name twice or empty is no error of the grouper:
    test_a_subgroup_name_twice_or_empty_holds_the_podgangs_pods_unscheduled)."""
    o, pods = _disagg()
    mutate(o["spec"])
    e = refused([node("a", gpu=2), kai_queue("q", -1), *_owners(), o, *pods])
    assert e.status == 422 and e.pointer == "/objects/4" + pointer and e.obj["kind"] == "PodGang", e.detail


@pytest.mark.parametrize(("mutate", "why"), [
    (lambda s: s["podgroups"][1].__setitem__("name", "prefill"), "duplicate subgroup name prefill"),
    (lambda s: s["podgroups"][0].__setitem__("name", "rack-pack"), "duplicate subgroup name rack-pack"),
    (lambda s: s["topologyConstraintGroupConfigs"].append(cfg("rack-pack", ["x"])), "duplicate subgroup name rack-pack"),
    (lambda s: s["podgroups"][0].__setitem__("name", ""), "an empty sub-group name"),
    (lambda s: s["podgroups"][1].__setitem__("name", "p" * 1_000_000) or s["podgroups"][0].__setitem__("name", "p" * 1_000_000),
     "duplicate subgroup name " + "p" * 100 + "..."),
])  # fmt: skip
def test_a_subgroup_name_twice_or_empty_holds_the_podgangs_pods_unscheduled(mutate, why: str) -> None:
    """A sub-group name twice (the PodGroup webhook's validateSubGroups, on by default,
    failurePolicy Fail) or empty (the CRD's subGroups[].name minLength 1): the API server
    refuses the PodGroup, ApplyToCluster fails and pod_controller.go's Reconcile returns
    before annotating the pods, so the PodGang's pods get no PodGroup and KAI never
    schedules them (held as pods of another scheduler, a warning names the refusal, the
    name cut to 100 characters); another PodGang of the request is scheduled as without it."""
    o, pods = _disagg()
    mutate(o["spec"])
    o2 = gang({"podgroups": [pg("w", 1, "r1-0")]}, name="pcs-1", uid="u-gang-1")
    out = decide([node("a", gpu=8), kai_queue("q", -1), *_owners(), o, o2, *pods, _gpod("r1-0", "pcs-1")])
    assert [b["pod"] for b in out["bindings"]] == [f"{NS}/r1-0"]
    assert all("so KAI never schedules it" in jobs(out)[f"{NS}/{n}"]["message"] for n in ("pf-0", "dc-0", "dc-1"))
    (w,) = [w for w in out["warnings"] if "the API server refuses" in w]
    assert why in w and f"{NS}/pg-pcs-0-u-gang" in w and len(w) < 2000


def test_null_on_the_way_is_not_found_as_go_reads_it(monkeypatch) -> None:
    """unstructured.NestedFieldNoCopy: a null topologyConstraint or packConstraint is not
    found (no constraint), and no topologyConstraintGroupConfigs or podgroups at all: no
    sub-groups, minMember 0 (left out of the PodGroup)."""
    o, pods = _disagg()
    o["spec"]["topologyConstraint"] = None
    o["spec"]["podgroups"][0]["topologyConstraint"] = {"packConstraint": None}
    md = kg.Grouper().grove(NO_TOP, kg.Pod("pf-0", NS, "", {}, {}), owner_of(o))
    assert tc(md) == ("", "", "") and [tc(sg) for sg in md.subgroups] == [None, None, None]
    md = kg.Grouper().grove(NO_TOP, kg.Pod("pf-0", NS, "", {}, {}), owner_of(gang({})))
    assert (md.subgroups, md.min_available) == ([], 0)
    pgs, _ = made_podgroups([node("a", gpu=8), kai_queue("q", -1), *_owners(), gang({}, name="pcs-0", uid="u-gang"), pods[0]],
                            monkeypatch)  # fmt: skip
    assert "minMember" not in pgs["pg-pcs-0-u-gang"]["spec"]


def test_the_top_owners_labels_and_annotations_fill_in_what_the_podgang_lacks() -> None:
    """The top owner's labels and annotations the PodGang's metadata lacks are the
    PodGroup's; priorityClassName and preemptibility labels among them win over the
    PodGang's spec.priorityClassName (parseMetadataFromTopOwner), kai.scheduler/topology*
    annotations fill in levels the pack constraint leaves empty; the queue is not taken
    from the top owner (CalcPodGroupQueue runs on the PodGang and the pod)."""
    o = gang({"topologyConstraint": {"packConstraint": {"required": "zone"}}, "priorityClassName": "inference",
              "podgroups": [pg("a", 1, "pod1")]},
             labels={"mine": "gang", kg.QUEUE_LABEL: "gq"}, annotations={kg.GROVE_TOPOLOGY_NAME: "topo"})  # fmt: skip
    top = kg.Owner("grove.io/v1alpha1", "PodCliqueSet", "pcs", "u", {"mine": "top", "extra": "x", "priorityClassName": "build",
                   kg.PREEMPTIBILITY_LABEL: "non-preemptible", kg.QUEUE_LABEL: "tq"},
                   {kg.TOPOLOGY_PREFERRED: "rack", kg.TOPOLOGY: "other"}, {})  # fmt: skip
    md = grove(o, top=top)
    assert md.labels == {"mine": "gang", kg.QUEUE_LABEL: "gq", "extra": "x", "priorityClassName": "build",
                         kg.PREEMPTIBILITY_LABEL: "non-preemptible"}  # fmt: skip
    assert (md.queue, md.priority_class, md.preemptibility) == ("gq", "build", "non-preemptible")
    assert tc(md) == ("rack", "zone", "topo")
    # without a pack constraint: the PodGang's kai.scheduler/topology* annotations, then the top owner's
    md = grove(gang({"podgroups": [pg("a", 1, "pod1")]}, annotations={kg.TOPOLOGY_REQUIRED: "zone"}), top=top)
    assert tc(md) == ("rack", "zone", "other") and md.priority_class == "build"


def test_priority_class_the_podgangs_spec_unchecked_else_the_default_groupers() -> None:
    """spec.priorityClassName is taken as it is (even one no PriorityClass has, even ""); without
    it the default grouper's on the PodGang (its label, the pod's, else train)."""
    assert grove(gang({"priorityClassName": "nope"})).priority_class == "nope"
    assert grove(gang({"priorityClassName": ""})).priority_class == ""
    assert grove(gang({})).priority_class == kg.TRAIN


def test_an_invalid_preemptibility_label_is_a_422_at_the_owner_holding_it() -> None:
    """ParsePreemptibility of the merged labels' kai.scheduler/preemptibility: the PodGang's,
    else the top owner's; an invalid one is KAI's error, a 422 at that owner's label."""
    o, pods = _disagg()
    owners = _owners()
    owners[0]["metadata"]["labels"] = {kg.PREEMPTIBILITY_LABEL: "maybe"}
    e = refused([node("a", gpu=2), kai_queue("q", -1), *owners, o, *pods])
    assert e.pointer == "/objects/2/metadata/labels/kai.scheduler~1preemptibility" and e.obj["kind"] == "PodCliqueSet"
    assert "invalid preemptibility value: maybe" in e.detail
    o["metadata"]["labels"] = {kg.PREEMPTIBILITY_LABEL: "never"}
    e = refused([node("a", gpu=2), kai_queue("q", -1), *owners, o, *pods])
    assert e.pointer == "/objects/4/metadata/labels/kai.scheduler~1preemptibility" and e.obj["kind"] == "PodGang"


def test_a_pod_referenced_by_no_podgroup_gets_no_subgroup_and_the_first_reference_wins(monkeypatch) -> None:
    """FindSubGroupForPod: the first sub-group whose podReferences name the pod (the
    parents name none); a pod none names joins the PodGroup with no sub-group."""
    o, pods = _disagg()
    o["spec"]["podgroups"][1]["podReferences"].append({"namespace": NS, "name": "pf-0"})
    extra = _gpod("stray", "pcs-0")
    _, labels = made_podgroups([node("a", gpu=8), kai_queue("q", -1), *_owners(), o, *pods, extra], monkeypatch)
    assert labels == {"pf-0": "prefill", "dc-0": "decode", "dc-1": "decode", "stray": None}


def test_min_replicas_wrap_as_go_int32_and_a_negative_minmember_is_refused() -> None:
    """int32(minReplicas) and the int32 sum: 2^32 + 1 counts 1; 2^31 - 1 twice wraps to -2,
    a PodGroup the CRD refuses (minimum 1): its pods get none, held as pods of another
    scheduler, with a warning."""
    md = grove(gang({"podgroups": [pg("a", 2**32 + 1, "pod1")]}))
    assert md.min_available == 1 and md.subgroups[0].min_available == 1
    o = gang({"podgroups": [pg("a", 2**31 - 1, "pf-0"), pg("b", 2**31 - 1, "dc-0")]}, name="pcs-0", uid="u-gang")
    out = decide([node("a", gpu=2), kai_queue("q", -1), *_owners(), o, _gpod("pf-0", "pcs-0"), _gpod("dc-0", "pcs-0")])
    assert out["bindings"] == [] and any("minMember -2" in w for w in out["warnings"])


def test_several_podgangs_of_one_name_the_least_uid(monkeypatch) -> None:
    o1, pods = _disagg()
    o2 = copy.deepcopy(o1)
    o2["metadata"]["uid"] = "a-first"
    o2["spec"]["podgroups"] = [pg("all", 3, "pf-0", "dc-0", "dc-1")]
    pgs, labels = made_podgroups([node("a", gpu=8), kai_queue("q", -1), *_owners(), o1, o2, *pods], monkeypatch)
    assert list(pgs) == ["pg-pcs-0-a-first"] and set(labels.values()) == {"all"}


def test_two_podgangs_of_one_podcliqueset_are_two_podgroups(monkeypatch) -> None:
    """The PodGroup is the PodGang's, not the top owner's: a PodCliqueSet of two replicas,
    a PodGang each, makes two PodGroups."""
    o1, pods1 = _disagg()
    o2 = gang({"podgroups": [pg("w", 1, "r1-0")]}, name="pcs-1", uid="u-gang-1")
    pgs, labels = made_podgroups([node("a", gpu=8), kai_queue("q", -1), *_owners(), o1, o2, *pods1, _gpod("r1-0", "pcs-1")],
                                 monkeypatch)  # fmt: skip
    assert sorted(pgs) == ["pg-pcs-0-u-gang", "pg-pcs-1-u-gang-1"] and labels["r1-0"] == "w"


def test_grove_the_same_answer_whatever_the_order_of_objects() -> None:
    o1, pods1 = _disagg()
    o2 = gang({"podgroups": [pg("w", 2, "r1-0", "r1-1")]}, name="pcs-1", uid="u-gang-1")
    pods2 = [_gpod("r1-0", "pcs-1", created="2026-11-23T09:00:00Z"), _gpod("r1-1", "pcs-1")]
    objs = [node("a", gpu=3), node("b", gpu=2), kai_queue("q", -1), *_owners(), o1, o2, *pods1, *pods2, _gpod("lost", "none")]
    want = decide_in_any_order(objs, 11)
    assert sorted(jobs(want)) == [f"{NS}/lost", f"{NS}/pg-pcs-0-u-gang", f"{NS}/pg-pcs-1-u-gang-1"]


def test_grove_subgroups_past_the_request_bound_are_a_422_at_the_podgangs_podgroups() -> None:
    """Gangplank's bound on the sub-groups of a request (SECURITY.md, *Limits*: 8 per
    object, at least 10,000): a PodGang of 10,001 podgroups (no pods referenced: Grove's
    podgroups each list their pods, so a PodGang's sub-groups are bounded by its size
    only) is a 422 at its spec/podgroups, naming it."""
    o = gang({"podgroups": [{"name": f"g{i}", "minReplicas": 1, "podReferences": []} for i in range(10_001)]},
             name="pcs-0", uid="u-gang")  # fmt: skip
    e = refused([node("a", gpu=2), kai_queue("q", -1), *_owners(), o, _gpod("p", "pcs-0")])
    assert e.status == 422 and e.pointer == "/objects/4/spec/podgroups" and e.obj["name"] == "pcs-0"


def test_grove_subgroups_past_the_request_bound_are_a_422_at_the_configs_that_overflow() -> None:
    """The bound is checked on the PodGang's entries (topologyConstraintGroupConfigs and
    podgroups, each a sub-group at most) before either is parsed, at the field whose
    entries pass it: 10,001 configs, at spec/topologyConstraintGroupConfigs; 5,000 configs
    and 5,001 podgroups, at spec/podgroups."""
    many = [cfg(f"c{i}", ["x"]) for i in range(10_001)]
    o = gang({"topologyConstraintGroupConfigs": many, "podgroups": []}, name="pcs-0", uid="u-gang")
    e = refused([node("a", gpu=2), kai_queue("q", -1), *_owners(), o, _gpod("p", "pcs-0")])
    assert e.status == 422 and e.pointer == "/objects/4/spec/topologyConstraintGroupConfigs" and e.obj["name"] == "pcs-0"
    assert "spec.topologyConstraintGroupConfigs has 10001 entries" in e.detail
    o = gang({"topologyConstraintGroupConfigs": many[:5_000],
              "podgroups": [{"name": f"g{i}", "minReplicas": 1, "podReferences": []} for i in range(5_001)]},
             name="pcs-0", uid="u-gang")  # fmt: skip
    e = refused([node("a", gpu=2), kai_queue("q", -1), *_owners(), o, _gpod("p", "pcs-0")])
    assert e.pointer == "/objects/4/spec/podgroups" and "to 10001 at most" in e.detail


def test_go_accessor_messages_as_apimachinery_words_them() -> None:
    """unstructured/helpers.go: the expected type of a step is ``map[string]interface{}``
    (the value's %T ``map[string]interface {}``), NestedStringSlice's entry error says
    ``contains non-string key in the slice``."""
    with pytest.raises(kg.GrouperError) as e:
        kg.nested({"a": "x"}, "a", "b")
    assert str(e.value) == ".a.b accessor error: x is of the type string, expected map[string]interface{}"
    with pytest.raises(kg.GrouperError) as e:
        kg.go_nested_string_slice({"a": ["x", {}]}, "a")
    assert str(e.value) == (".a accessor error: contains non-string key in the slice: dict is of the type "
                            "map[string]interface {}, expected string") and e.value.path == ("a", 1)  # fmt: skip


def test_names_in_podgang_errors_are_cut() -> None:
    """A huge name in a PodGang (a reference's namespace, a sub-group name twice) is cut to
    100 characters in the error, so the answer does not echo it."""
    o, pods = _disagg()
    o["spec"]["podgroups"][0]["podReferences"][0]["namespace"] = "n" * 1_000_000
    e = refused([node("a", gpu=2), kai_queue("q", -1), *_owners(), o, *pods])
    assert e.pointer == "/objects/4/spec/podgroups/0/podReferences/0/namespace" and len(e.detail) < 1000
    assert "n" * 100 + "..." in e.detail
