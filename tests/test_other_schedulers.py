"""Pending pods of other schedulers (Volcano's ``responsibleForPod``): Volcano's cache holds a
Pending pod only when its ``schedulerName`` is one of Volcano's (``volcano`` by default); a
pod on a node is counted whatever its scheduler. Upstream: volcano-sh/volcano
``pkg/scheduler/cache/util.go`` ``responsibleForPod`` and the pod informer's filter in
``cache.go`` (``len(v.Spec.NodeName) == 0`` and not responsible: not added)."""

from __future__ import annotations

import orjson

from tests.kube import node, pod, podgroup, request


def decide(client, objects: list[dict], config: dict) -> dict:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=config)), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def named(p: dict, scheduler: str) -> dict:
    p["spec"]["schedulerName"] = scheduler
    return p


def test_the_volcano_profile_leaves_pending_pods_of_other_schedulers_alone(client) -> None:
    """A Pending ``default-scheduler`` pod is not placed by the volcano profile (a warning and
    its job's message say why); a ``volcano`` one, and one naming none (a snapshot that leaves
    the field out), are; the default profile places all three."""
    objs = [node("n1", cpu="8", gpu=None), named(pod("other"), "default-scheduler"), named(pod("mine"), "volcano"), pod("plain")]
    out = decide(client, objs, {"profile": "volcano"})
    assert sorted(b["pod"] for b in out["bindings"]) == ["default/mine", "default/plain"]
    assert any("schedulerName 'default-scheduler'" in w for w in out["warnings"])
    assert any("names scheduler 'default-scheduler'" in (j["message"] or "") for j in out["jobs"])
    out = decide(client, objs, {"profile": "gangplank"})
    assert sorted(b["pod"] for b in out["bindings"]) == ["default/mine", "default/other", "default/plain"]


def test_a_pod_of_another_scheduler_on_a_node_still_takes_its_room(client) -> None:
    """Volcano's cache adds a pod that is on a node whatever its scheduler: a running
    ``default-scheduler`` pod holding 6 of 8 CPUs leaves room for one more pod of 2 CPUs, not two."""
    objs = [node("n1", cpu="8", gpu=None), named(pod("busy", node="n1", cpu="6"), "default-scheduler"),
            named(pod("a", cpu="2"), "volcano"), named(pod("b", cpu="2"), "volcano")]  # fmt: skip
    out = decide(client, objs, {"profile": "volcano"})
    assert len(out["bindings"]) == 1


def test_a_gang_of_another_schedulers_pods_is_not_placed(client) -> None:
    objs = [node("n1", cpu="8", gpu=None), podgroup("g", min_member=2)]
    objs += [named(pod(f"g-{i}", group="g"), "default-scheduler") for i in range(2)]
    assert decide(client, objs, {"profile": "volcano"})["bindings"] == []


def test_pods_of_kai_jobs_under_the_volcano_profile_are_named_in_the_warnings(client) -> None:
    """Not modelled: a Pending pod of a KAI job is placed by the volcano profile; the warnings say so."""
    group = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": "k", "namespace": "default"},
             "spec": {"minMember": 1, "queue": "q"}}  # fmt: skip
    p = named(pod("k-0", annotations={"pod-group-name": "k"}), "kai-scheduler")
    q = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}, "spec": {}}
    out = decide(client, [node("n1", cpu="8", gpu=None), q, group, p], {"profile": "volcano"})
    assert any(w.startswith("Pending pods of KAI jobs") for w in out["warnings"])
