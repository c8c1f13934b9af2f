"""Ingest rules: states, priorities, gang membership across APIs, topology sources, native form."""

from __future__ import annotations

import pytest

from app.errors import InputError
from app.ingest.request import read_request
from app.model.cluster import TaskStatus
from app.model.dump import canonical
from app.settings import Settings
from tests.kube import hypernode, node, pod, podgroup, priority_class, queue, request

S = Settings()


def model(objects, **extra):
    return read_request(request(objects, **extra), S).cluster


def test_task_states_follow_volcano_from_pod_phase():
    deleting = pod("d", node="n1")
    deleting["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    c = model([
        node("n1"), pod("run", node="n1"), pod("bound", node="n1", phase="Pending"), pod("pend"),
        deleting, pod("done", node="n1", phase="Succeeded"), pod("bad", node="n1", phase="Failed"),
    ])  # fmt: skip
    st = {t.name: t.status for t in c.tasks}
    assert st == {
        "run": TaskStatus.RUNNING, "bound": TaskStatus.BOUND, "pend": TaskStatus.PENDING,
        "d": TaskStatus.RELEASING, "done": TaskStatus.SUCCEEDED, "bad": TaskStatus.FAILED,
    }  # fmt: skip


def test_releasing_pods_hold_capacity_and_count_as_releasing_finished_pods_hold_none():
    deleting = pod("d", node="n1", cpu="2")
    deleting["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    c = model([node("n1", cpu="10"), pod("run", node="n1", cpu="3"), deleting, pod("done", node="n1", cpu="4", phase="Succeeded")])
    cpu = c.resources.index["cpu"]
    assert c.used[0, cpu] == 5000  # millicores: running 3 + releasing 2; succeeded holds nothing
    assert c.releasing[0, cpu] == 2000
    assert c.future_idle[0, cpu] == 10000 - 5000 + 2000


def test_node_allocatable_falls_back_to_capacity():
    n = node("n1", cpu="4")
    del n["status"]["allocatable"]
    c = model([n])
    assert c.allocatable[0, c.resources.index["cpu"]] == 4000


def test_priority_comes_from_spec_then_class_then_global_default():
    c = model([
        node("n1"), priority_class("gold", 1000), priority_class("base", 7, default=True),
        pod("explicit", priority=5, priority_class="gold"), pod("byclass", priority_class="gold"), pod("nothing"),
    ])  # fmt: skip
    pr = {t.name: t.priority for t in c.tasks}
    assert pr == {"explicit": 5, "byclass": 1000, "nothing": 7}


def test_builtin_critical_classes_exist_and_mark_pods_critical():
    c = model([node("n1"), pod("sys", priority_class="system-node-critical"), pod("kube", ns="kube-system"), pod("user")])
    crit = {t.name: (t.priority, t.critical) for t in c.tasks}
    assert crit["sys"] == (2_000_001_000, True)
    assert crit["kube"][1] is True and crit["user"][1] is False


def test_two_global_default_classes_are_rejected():
    with pytest.raises(InputError) as e:
        model([priority_class("a", 1, default=True), priority_class("b", 2, default=True)])
    assert e.value.pointer == "/objects/1/globalDefault"


def test_volcano_gang_membership_roles_and_job_priority_from_class():
    c = model([
        node("n1"), priority_class("high", 1000), queue("q"),
        podgroup("g", ns="ml", min_member=3, queue="q", priority_class="high", min_task_member={"worker": 2}),
        pod("d0", ns="ml", group="g", role="driver"), pod("w0", ns="ml", group="g", role="worker"),
        pod("w1", ns="ml", group="g", role="worker"),
    ])  # fmt: skip
    job = c.jobs["ml/g"]
    assert job.source == "volcano" and job.queue == "q" and job.priority == 1000
    assert job.min_available == 3 and job.min_task_member == {"worker": 2}
    assert [t.role for t in job.tasks] == ["driver", "worker", "worker"]


def test_volcano_preemptable_label_on_pod_and_podgroup():
    pg = podgroup("g", annotations={"volcano.sh/preemptable": "false"})
    c = model([node("n1"), pg, pod("p", group="g", labels={"volcano.sh/preemptable": "false"}), pod("q", group="g")])
    job = c.jobs["default/g"]
    assert job.preemptable is False
    assert {t.name: t.preemptable for t in job.tasks} == {"p": False, "q": True}


@pytest.mark.parametrize("value, want", [
    ("true", True), ("True", True), ("TRUE", True), ("t", True), ("T", True), ("1", True),
    ("false", False), ("False", False), ("FALSE", False), ("f", False), ("0", False),
    ("yes", False), ("tRue", False), (" true", False), ("true ", False), ("", False),
])  # fmt: skip
def test_rule_volcano_preemptable_values_as_go_parse_bool(value, want):
    """GetPodPreemptable / extractPreemptable read the value with strconv.ParseBool, and a
    value it refuses is false (not unset): on the pod's annotation, its label, and the
    PodGroup's annotation; the annotation is read before the label even when refused."""
    ann = {"volcano.sh/preemptable": value}
    pg = podgroup("g", annotations=ann)
    c = model([node("n1"), pg, pod("p", group="g", annotations=ann), pod("q", group="g", labels=ann),
               pod("r", group="g", annotations=ann, labels={"volcano.sh/preemptable": "true"})])  # fmt: skip
    job = c.jobs["default/g"]
    assert job.preemptable is want
    assert {t.name: t.preemptable for t in job.tasks} == {"p": want, "q": want, "r": want}


def test_volcano_network_topology_and_tier_name_exclusive():
    c = model([node("n1"), podgroup("g", network_topology={"mode": "hard", "highestTierAllowed": 2}), pod("p", group="g")])
    nt = c.jobs["default/g"].network_topology
    assert (nt.mode, nt.highest_tier_allowed) == ("hard", 2)
    with pytest.raises(InputError) as e:
        model([podgroup("g", network_topology={"highestTierAllowed": 1, "highestTierName": "rack"})])
    assert e.value.pointer == "/objects/0/spec/networkTopology/highestTierName"


def test_subgroup_ids_follow_policy_name_and_match_label_values():
    policy = [{"name": "task0", "subGroupSize": 2, "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "t0"}},
               "matchLabelKeys": ["volcano.sh/partition-id"]}]  # fmt: skip
    pods = [
        pod(f"p{i}", group="g", role="t0", labels={"volcano.sh/partition-id": str(i // 2)}) for i in range(4)
    ]
    c = model([node("n1"), podgroup("g", min_member=4, sub_group_policy=policy), *pods])
    sgs = c.jobs["default/g"].subgroups
    assert list(sgs) == ["default/g/task0-0", "default/g/task0-1"]
    assert [t.name for t in sgs["default/g/task0-1"].tasks] == ["p2", "p3"]
    assert sgs["default/g/task0-1"].min_available == 2 and sgs["default/g/task0-1"].match_index == 1


def kai_objects():
    return [
        node("n1", labels={"zone": "z1", "rack": "r1"}),
        node("n2", labels={"zone": "z1", "rack": "r2"}),
        {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "team-a"},
         "spec": {"priority": 100, "resources": {"gpu": {"quota": 8, "overQuotaWeight": 1, "limit": -1},
                                                 "cpu": {"quota": -1, "limit": -1}, "memory": {"quota": -1, "limit": -1}}}},
        {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": "kg", "namespace": "ml"},
         "spec": {"minMember": 2, "queue": "team-a", "priorityClassName": "train",
                  "topologyConstraint": {"topology": "dc", "requiredTopologyLevel": "zone"},
                  "subGroups": [{"name": "leaders", "minMember": 1}, {"name": "workers", "minMember": 1}]}},
        pod("k0", ns="ml", annotations={"pod-group-name": "kg"}, labels={"kai.scheduler/subgroup-name": "leaders"}),
        pod("k1", ns="ml", annotations={"pod-group-name": "kg"}, labels={"kai.scheduler/subgroup-name": "workers",
                                                                          "kai.scheduler/task-priority": "3"}),
        {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "dc"},
         "spec": {"levels": [{"nodeLabel": "zone"}, {"nodeLabel": "rack"}, {"nodeLabel": "kubernetes.io/hostname"}]}},
    ]  # fmt: skip


def test_kai_podgroup_queue_priority_subgroups_and_topology():
    c = model(kai_objects())
    job = c.jobs["ml/kg"]
    assert job.source == "kai" and job.queue == "team-a" and job.priority == 50  # KAI's "train" class
    assert job.network_topology.highest_tier_name == "zone" and job.network_topology.mode == "hard"
    assert sorted(job.subgroups) == ["ml/kg/leaders", "ml/kg/workers"]
    assert {t.name: t.task_priority for t in job.tasks} == {"k0": None, "k1": 3}
    assert c.queues["team-a"].kai["gpu"].quota == 8


def test_a_kai_sub_group_named_as_parent_is_a_set_without_pods_or_minimum():
    """KAI's createSubGroupInfos: a sub-group others name as ``parent`` is a SubGroupSet
    (its children's gangs decide); a leaf keeps its minimum. Without this the set is a
    sub-group no pod joins, and the job is never valid (allocate_subgroups[5])."""
    from app.service import decide_request

    objs = [o for o in kai_objects() if o.get("kind") != "PodGroup"]
    objs.append({"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": "kg", "namespace": "ml"},
                 "spec": {"minMember": 2, "queue": "team-a", "subGroups": [
                     {"name": "all", "minMember": 5}, {"name": "leaders", "minMember": 1, "parent": "all"},
                     {"name": "workers", "minMember": 1, "parent": "all"}]}})  # fmt: skip
    c = model(objs)
    policies = {p.name: p for p in c.jobs["ml/kg"].subgroup_policies}
    assert policies["all"].min_sub_groups == 0 and policies["leaders"].min_sub_groups == 1
    wire = decide_request(read_request(request(objs, config={"profile": "kai"}), S)).wire()
    assert sorted(b["pod"] for b in wire["bindings"]) == ["ml/k0", "ml/k1"]


def test_a_kai_pod_set_needs_at_least_one_pod():
    """KAI's createSubGroupInfos: NewPodSet(name, max(minMember, 1), ...)."""
    objs = [o for o in kai_objects() if o.get("kind") != "PodGroup"]
    objs.append({"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": "kg", "namespace": "ml"},
                 "spec": {"minMember": 1, "queue": "team-a", "subGroups": [{"name": "leaders", "minMember": 0},
                                                                           {"name": "workers"}]}})  # fmt: skip
    policies = {p.name: p for p in model(objs).jobs["ml/kg"].subgroup_policies}
    assert policies["leaders"].sub_group_size == 1 and policies["workers"].sub_group_size == 1


def test_kai_topology_levels_become_the_hypernode_tree():
    """A last kubernetes.io/hostname level is dropped (a thousand one-node domains only
    lengthen the search) unless a KAI constraint names the Topology: KAI's tree keeps it."""
    unnamed = [o for o in kai_objects() if o.get("kind") not in ("PodGroup", "Pod")]
    topo = model(unnamed).topology
    tiers = {topo.names[h]: int(topo.tier[h]) for h in range(len(topo.names))}
    assert tiers["<cluster-top-hypernode>"] == 3
    assert sorted(t for n, t in tiers.items() if n != "<cluster-top-hypernode>") == [1, 1, 2]
    assert topo.tier_by_name["rack"] == 1 and topo.tier_by_name["zone"] == 2
    topo = model(kai_objects()).topology
    tiers = {topo.names[h]: int(topo.tier[h]) for h in range(len(topo.names))}
    assert tiers["<cluster-top-hypernode>"] == 4 and tiers["dc/z1/r1/n1"] == 1
    assert sorted(t for n, t in tiers.items() if n != "<cluster-top-hypernode>") == [1, 1, 2, 2, 3]
    assert topo.tier_by_name == {"kubernetes.io/hostname": 1, "rack": 2, "zone": 3, **{
        k: v for k, v in topo.tier_by_name.items() if k not in ("kubernetes.io/hostname", "rack", "zone")}}


def test_koordinator_annotation_gang_with_mode_and_groups():
    ann = {"gang.scheduling.koordinator.sh/name": "ga", "gang.scheduling.koordinator.sh/min-available": "2",
           "gang.scheduling.koordinator.sh/mode": "NonStrict", "gang.scheduling.koordinator.sh/waiting-time": "90s",
           "gang.scheduling.koordinator.sh/groups": '["x/ga", "x/gb"]'}  # fmt: skip
    c = model([node("n1"), pod("a0", ns="x", annotations=ann), pod("a1", ns="x", annotations=ann)])
    job = c.jobs["x/ga"]
    assert (job.source, job.min_available, job.gang_mode, job.waiting_time) == ("koordinator", 2, "NonStrict", 90.0)
    assert job.gang_groups == ("x/ga", "x/gb") and job.match_policy == "once-satisfied"


def test_koordinator_bad_mode_names_the_annotation():
    ann = {"gang.scheduling.koordinator.sh/name": "ga", "gang.scheduling.koordinator.sh/mode": "Loose"}
    with pytest.raises(InputError) as e:
        model([pod("a0", annotations=ann)])
    assert e.value.pointer == "/objects/0/metadata/annotations/gang.scheduling.koordinator.sh~1mode"


def test_scheduler_plugins_podgroup_by_label():
    pg = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "sp"},
          "spec": {"minMember": 2, "scheduleTimeoutSeconds": 30}}  # fmt: skip
    c = model([node("n1"), pg, pod("a", labels={"scheduling.x-k8s.io/pod-group": "sp"}),
               pod("b", labels={"scheduling.x-k8s.io/pod-group": "sp"})])  # fmt: skip
    job = c.jobs["default/sp"]
    assert job.source == "scheduler-plugins" and job.min_available == 2 and len(job.tasks) == 2


def test_workload_v1alpha1_workload_ref_forms_gangs_per_pod_group():
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload", "metadata": {"name": "llm", "namespace": "ml"},
          "spec": {"controllerRef": {"kind": "Job", "name": "llm"},
                   "podGroups": [{"name": "workers", "policy": {"gang": {"minCount": 2}}},
                                 {"name": "driver", "policy": {"basic": {}}}]}}  # fmt: skip
    ref = lambda g: {"workloadRef": {"name": "llm", "podGroup": g}}  # noqa: E731
    c = model([node("n1"), wl, pod("w0", ns="ml", extra_spec=ref("workers")), pod("w1", ns="ml", extra_spec=ref("workers")),
               pod("d0", ns="ml", extra_spec=ref("driver"))])  # fmt: skip
    assert c.jobs["ml/llm-workers"].min_available == 2
    assert c.jobs["ml/d0"].source == "pod"  # basic policy: no gang


def test_workload_v1alpha2_podgroup_priority_and_disruption_mode():
    pg = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup", "metadata": {"name": "llm-0", "namespace": "ml"},
          "spec": {"podGroupTemplateRef": {"workload": {"workloadName": "llm", "podGroupTemplateName": "workers"}},
                   "schedulingPolicy": {"gang": {"minCount": 2}}, "disruptionMode": "PodGroup", "priority": 100000}}  # fmt: skip
    sg = {"schedulingGroup": {"podGroupName": "llm-0"}}
    c = model([node("n1"), pg, pod("a", ns="ml", priority=1, extra_spec=sg), pod("b", ns="ml", extra_spec=sg)])
    job = c.jobs["ml/llm-0"]
    assert (job.source, job.min_available, job.disruption_mode, job.priority) == ("workload", 2, "PodGroup", 100000)
    assert {t.priority for t in job.tasks} == {100000}  # the group's priority is the pods' priority


def test_workload_v1beta1_union_disruption_mode_and_preemption_policy():
    pg = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "g", "namespace": "ml"},
          "spec": {"workloadRef": {"workloadName": "w", "templateName": "t"}, "schedulingPolicy": {"gang": {"minCount": 1}},
                   "disruptionMode": {"all": {}}, "preemptionPolicy": "Never"}}  # fmt: skip
    c = model([node("n1"), pg, pod("a", ns="ml", extra_spec={"schedulingGroup": {"podGroupName": "g"}})])
    job = c.jobs["ml/g"]
    assert job.disruption_mode == "PodGroup" and job.preemption_policy == "Never"


def test_workload_podgroup_without_policy_takes_its_template():
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload", "metadata": {"name": "w", "namespace": "ml"},
          "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": {"gang": {"minCount": 3}},
                                          "schedulingConstraints": {"topology": [{"key": "rack"}]}}]}}  # fmt: skip
    pg = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup", "metadata": {"name": "g", "namespace": "ml"},
          "spec": {"podGroupTemplateRef": {"workload": {"workloadName": "w", "podGroupTemplateName": "t"}}}}  # fmt: skip
    c = model([node("n1"), wl, pg, pod("a", ns="ml", extra_spec={"schedulingGroup": {"podGroupName": "g"}})])
    job = c.jobs["ml/g"]
    assert job.min_available == 3 and job.network_topology.highest_tier_name == "rack"


def test_disruption_mode_podgroup_needs_a_gang_policy():
    pg = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup", "metadata": {"name": "g", "namespace": "ml"},
          "spec": {"schedulingPolicy": {"basic": {}}, "disruptionMode": "PodGroup"}}  # fmt: skip
    with pytest.raises(InputError) as e:
        model([pg])
    assert e.value.pointer == "/objects/0/spec/disruptionMode"


def test_volcano_label_discovery_from_controller_configmap():
    conf = """
networkTopologyDiscovery:
- source: label
  enabled: true
  config:
    networkTopologyTypes:
      a3:
      - nodeLabel: example.com/spine
      - nodeLabel: example.com/leaf
      - nodeLabel: kubernetes.io/hostname
"""
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "volcano-controller-configmap", "namespace": "volcano-system"},
          "data": {"volcano-controller.conf": conf}}  # fmt: skip
    nodes = [node(f"n{i}", labels={"example.com/spine": f"s{i // 4}", "example.com/leaf": f"l{i // 2}"}) for i in range(8)]
    c = model([*nodes, cm])
    topo = c.topology
    assert topo.tier_by_name == {"example.com/leaf": 1, "example.com/spine": 2}
    assert int(topo.tier[topo.lca([0, 1])]) == 1
    assert int(topo.tier[topo.lca([0, 2])]) == 2
    assert int(topo.tier[topo.lca([0, 4])]) == 3  # only the virtual root holds both spines


def test_several_topologies_need_a_choice():
    topo = lambda n: {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": n},  # noqa: E731
                      "spec": {"levels": [{"nodeLabel": "rack"}]}}  # fmt: skip
    with pytest.raises(InputError) as e:
        model([node("n1", labels={"rack": "r"}), topo("a"), topo("b")])
    assert e.value.pointer == "/options/topology"
    c = read_request({"objects": [node("n1", labels={"rack": "r"}), topo("a"), topo("b")], "options": {"topology": "b"}}, S).cluster
    assert any(n.startswith("b/") for n in c.topology.names)


def test_gpu_fraction_annotation_requests_milli_gpus():
    c = model([node("n1"), pod("inf", annotations={"gpu-fraction": "0.5"})])
    assert c.tasks[0].req[c.resources.index["nvidia.com/gpu"]] == 500


def test_native_form_builds_the_same_model_as_kubernetes_objects():
    objects = [
        node("n0", labels={"rack": "r0"}), node("n1", labels={"rack": "r0"}), node("n2", labels={"rack": "r1"}),
        hypernode("h0", 1, ["n0", "n1"]), hypernode("h1", 1, ["n2"]),
        priority_class("hi", 100), queue("q", weight=3, capability={"cpu": "100"}),
        podgroup("g", ns="ml", min_member=2, queue="q", priority_class="hi", network_topology={"mode": "hard", "highestTierAllowed": 1}),
        pod("a", ns="ml", node="n0", group="g", cpu="2", memory="4Gi", gpu=8, priority=100, role="w"),
        pod("b", ns="ml", group="g", cpu="2", memory="4Gi", gpu=8, priority=100, role="w"),
        pod("solo", node="n2", cpu="500m", memory=None, priority=0),
    ]  # fmt: skip
    native = {
        "nodes": [{"name": n, "labels": {"kubernetes.io/hostname": n, "rack": r},
                   "allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": "8"}}
                  for n, r in (("n0", "r0"), ("n1", "r0"), ("n2", "r1"))],
        "hyperNodes": [{"name": "h0", "tier": 1, "members": [{"exactMatch": "n0"}, {"exactMatch": "n1"}]},
                       {"name": "h1", "tier": 1, "members": [{"exactMatch": "n2"}]}],
        "priorityClasses": [{"name": "hi", "value": 100}],
        "queues": [{"name": "q", "weight": 3, "capability": {"cpu": "100"}}],
        "groups": [{"name": "g", "namespace": "ml", "minMember": 2, "queue": "q", "priorityClassName": "hi",
                    "networkTopology": {"mode": "hard", "highestTierAllowed": 1}, "createdAt": "2026-11-23T09:00:00Z"}],
        "pods": [
            {"name": "a", "namespace": "ml", "node": "n0", "phase": "Running", "group": "g", "role": "w", "priority": 100,
             "requests": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": 8}, "createdAt": "2026-11-23T10:00:00Z",
             "labels": {"volcano.sh/task-spec": "w"}},
            {"name": "b", "namespace": "ml", "group": "g", "role": "w", "priority": 100,
             "requests": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": 8}, "createdAt": "2026-11-23T10:00:00Z",
             "labels": {"volcano.sh/task-spec": "w"}},
            {"name": "solo", "node": "n2", "phase": "Running", "priority": 0, "requests": {"cpu": "500m"},
             "createdAt": "2026-11-23T10:00:00Z"},
        ],
    }  # fmt: skip
    a = canonical(model(objects))
    b = canonical(read_request({"cluster": native, "options": {"now": "2026-11-23T12:00:00Z"}}, S).cluster)
    assert a == b


@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_quantity_is_refused_after_the_same_number_was_remembered(value):
    """The native fast readers remember converted maps; ``True == 1`` and ``False == 0``
    in Python, so a boolean must never be answered from a map remembered for a number."""
    nodes = [{"name": f"n{i}", "allocatable": {"cpu": "8", "nvidia.com/gpu": int(value)}} for i in range(2)]
    bad_node = {"name": "nb", "allocatable": {"cpu": "8", "nvidia.com/gpu": value}}
    with pytest.raises(InputError) as e:
        read_request({"cluster": {"nodes": [*nodes, bad_node]}}, Settings())
    assert e.value.pointer == "/cluster/nodes/2/allocatable/nvidia.com~1gpu" and "boolean" in e.value.detail
    pods = [{"name": f"p{i}", "requests": {"cpu": int(value)}} for i in range(70)] + [{"name": "pb", "requests": {"cpu": value}}]
    with pytest.raises(InputError) as e:
        read_request({"cluster": {"nodes": nodes, "pods": pods}}, Settings())
    assert e.value.pointer == "/cluster/pods/70/requests/cpu" and "boolean" in e.value.detail


def test_an_unhashable_allocatable_value_is_a_clear_error():
    nodes = [{"name": "n0", "labels": {"r": "a"}, "allocatable": {"cpu": "8", "mem": ["x/g"]}}]
    with pytest.raises(InputError) as e:
        read_request({"cluster": {"nodes": nodes}}, Settings())
    assert e.value.pointer.startswith("/cluster/nodes/0/allocatable")


@pytest.mark.parametrize("pods", [1, 70], ids=["record by record", "column by column"])
def test_native_fast_readers_check_resource_names(pods):
    """The fast readers refuse what the full reader refuses: a resource name too long."""
    bad = "x" * 300
    nodes = [{"name": "n0", "allocatable": {"cpu": "8"}}]
    records = [{"name": f"p{i}", "requests": {"cpu": "1"}} for i in range(pods - 1)] + [{"name": "pb", "requests": {bad: "1"}}]
    with pytest.raises(InputError) as e:
        read_request({"cluster": {"nodes": nodes, "pods": records}}, Settings())
    assert e.value.pointer == f"/cluster/pods/{pods - 1}/requests/{bad}"
    with pytest.raises(InputError) as e:
        read_request({"cluster": {"nodes": [*nodes, {"name": "n1", "allocatable": {bad: "1"}}]}}, Settings())
    assert e.value.pointer == f"/cluster/nodes/1/allocatable/{bad}"


@pytest.mark.parametrize("pods", [1, 70], ids=["record by record", "column by column"])
def test_an_unhashable_native_phase_is_a_clear_error(pods):
    """Found by the column reader's property test: a list as ``phase`` reached a set lookup
    in both fast readers (a 500); it is refused at its field like any other bad phase."""
    records = [{"name": f"p{i}"} for i in range(pods - 1)] + [{"name": "pb", "phase": ["Running"]}]
    with pytest.raises(InputError) as e:
        read_request({"cluster": {"nodes": [{"name": "n0"}], "pods": records}}, Settings())
    assert e.value.pointer == f"/cluster/pods/{pods - 1}/phase"


def test_missing_priority_class_gives_the_default_priority_and_a_warning():
    # Volcano's cache: a PodGroup whose class is not found keeps the default priority (the
    # globalDefault class, else 0); the answer's warnings name the class and who names it
    import orjson

    from app.ingest.request import read_request
    from app.settings import Settings
    from tests.kube import node, pod, podgroup, request

    default = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "normal"},
               "value": 7, "globalDefault": True}  # fmt: skip
    objs = [node("a"), podgroup("pg", priority_class="gone"), pod("p", group="pg", priority_class="gone"),
            pod("solo", priority_class="gone")]  # fmt: skip
    for extra, value in (([], 0), ([default], 7)):
        c = read_request(orjson.loads(orjson.dumps(request(objs + extra))), Settings()).cluster
        assert {k: j.priority for k, j in c.jobs.items()} == {"default/pg": value, "default/solo": value}
        assert {t.key: t.priority for t in c.tasks} == {"default/p": value, "default/solo": value}
        assert [w for w in c.warnings if "'gone'" in w] == [
            f"PriorityClass 'gone', named by Pod default/p, Pod default/solo, PodGroup default/pg, is not in the "
            f"snapshot: the default priority {value} (the globalDefault class, else 0) is used, as Volcano does"]


def test_scheduler_plugins_v1alpha1_podgroup_and_pod_label_make_a_gang():
    # coscheduling's first API group, the form Koordinator's gang docs use: minMember 3 on two
    # 8-GPU nodes places nothing (no pod is bound on its own)
    import orjson

    from app.ingest.request import read_request
    from app.service import decide_request
    from app.settings import Settings
    from tests.kube import node, pod, request

    pg = {"apiVersion": "scheduling.sigs.k8s.io/v1alpha1", "kind": "PodGroup",
          "metadata": {"name": "gang-example", "namespace": "default"}, "spec": {"minMember": 3, "scheduleTimeoutSeconds": 100}}  # fmt: skip
    objs = [node("a", gpu=8), node("b", gpu=8), pg]
    objs += [pod(f"p{i}", gpu=8, labels={"pod-group.scheduling.sigs.k8s.io": "gang-example"}) for i in range(3)]
    req = read_request(orjson.loads(orjson.dumps(request(objs))), Settings())
    job = req.cluster.jobs["default/gang-example"]
    assert job.min_available == 3 and len(job.tasks) == 3 and req.cluster.warnings == []
    assert decide_request(req).wire()["bindings"] == []


def test_gang_hint_of_a_scheduler_gangplank_does_not_read_is_a_warning():
    import orjson

    from app.ingest.request import read_request
    from app.settings import Settings
    from tests.kube import node, pod, request

    objs = [node("a")] + [pod(f"w{i}", labels={"kueue.x-k8s.io/pod-group-name": "grp"}) for i in range(2)]
    c = read_request(orjson.loads(orjson.dumps(request(objs))), Settings()).cluster
    assert c.warnings == ["2 pod(s) carry the label kueue.x-k8s.io/pod-group-name (Kueue's plain-pod groups, e.g. Pod "
                          "default/w0), which Gangplank does not read: each is scheduled on its own, not as a gang"]


def test_pod_constraints_gangplank_evaluates_leave_no_warning():
    import orjson

    from app.ingest.request import read_request
    from app.settings import Settings
    from tests.kube import node, pod, request

    rule = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
    anti = {"affinity": {"podAntiAffinity": {  # required terms are checked, preferred ones scored
        "requiredDuringSchedulingIgnoredDuringExecution": [rule],
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": rule}]}}}
    spread = {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]}
    objs = [node("a"), pod("w0", extra_spec=anti), pod("w1", extra_spec=anti), pod("s", extra_spec=spread), pod("plain")]
    objs[-1]["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    c = read_request(orjson.loads(orjson.dumps(request(objs))), Settings()).cluster
    assert c.warnings == []  # host ports checked, ScheduleAnyway scored (tests/test_topology_spread.py)
    assert [con.key for con in c.soft_spread["default/s"]] == ["zone"] and not c.spread
