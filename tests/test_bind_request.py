"""KAI BindRequests (``scheduling.run.ai/v1alpha2``): a pod whose BindRequest the binder has
not finished is Binding on ``spec.selectedNode``. It holds that node, counts as ready for
its gang and is not placed again. Finished and given-up BindRequests change nothing."""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, podgroup, request

TIERS = [{"plugins": [{"name": "priority"}, {"name": "gang"}]}, {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]
CONF = {"actions": "allocate", "tiers": TIERS}


def bind_request(pod_name, node_name, *, phase=None, limit=None, attempts=None, ns="default", groups=None):
    spec = {"podName": pod_name, "selectedNode": node_name}
    if groups is not None:
        spec["selectedGPUGroups"] = groups
    if limit is not None:
        spec["backoffLimit"] = limit
    status = {}
    if phase is not None:
        status["phase"] = phase
    if attempts is not None:
        status["failedAttempts"] = attempts
    return {"apiVersion": "scheduling.run.ai/v1alpha2", "kind": "BindRequest",
            "metadata": {"name": f"{pod_name}-br", "namespace": ns}, "spec": spec, "status": status}  # fmt: skip


def post(client, objects):
    return client.post("/v1/decisions", content=orjson.dumps(request(objects, config=CONF)),
                       headers={"Content-Type": "application/json"})  # fmt: skip


def decide(client, objects):
    r = post(client, objects)
    assert r.status_code == 200, r.text
    return r.json()


def state(out, job):
    return next(j for j in out["jobs"] if j["job"] == job)


def test_a_pod_with_a_bind_request_in_flight_is_binding_on_the_selected_node(client):
    # p is Binding on n0 (8 GPUs): q finds n0 full; p itself is not placed again
    objs = [node("n0"), pod("p", gpu=8), bind_request("p", "n0"), pod("q", gpu=8, created="2026-11-23T11:00:00Z")]
    out = decide(client, objs)
    assert out["bindings"] == []
    assert state(out, "default/p")["state"] == "Running"
    assert state(out, "default/p")["hyperNode"] is not None  # it holds a node
    assert state(out, "default/q")["state"] == "Pending"


def test_a_binding_pod_counts_as_ready_for_its_gang(client):
    # gang of 2: g-0 is Binding on n0, g-1 pending: one more pod makes the gang ready
    objs = [node("n0"), node("n1"), podgroup("g", min_member=2), pod("g-0", group="g", gpu=8), pod("g-1", group="g", gpu=8),
            bind_request("g-0", "n0")]  # fmt: skip
    out = decide(client, objs)
    assert out["bindings"] == [{"pod": "default/g-1", "node": "n1", "job": "default/g"}]
    assert state(out, "default/g")["state"] == "Bound"


@pytest.mark.parametrize(("phase", "limit", "attempts"), [("Succeeded", None, None), ("Failed", None, None), ("Failed", 3, 3)])
def test_a_finished_or_abandoned_bind_request_changes_nothing(client, phase, limit, attempts):
    objs = [node("n0"), pod("p", gpu=8), bind_request("p", "n0", phase=phase, limit=limit, attempts=attempts)]
    assert decide(client, objs)["bindings"] == [{"pod": "default/p", "node": "n0", "job": "default/p"}]


def test_a_failed_bind_request_still_being_retried_keeps_its_pod_binding(client):
    objs = [node("n0"), pod("p", gpu=8), bind_request("p", "n0", phase="Failed", limit=5, attempts=2)]
    out = decide(client, objs)
    assert out["bindings"] == [] and state(out, "default/p")["state"] == "Running"


def test_a_bind_request_for_a_pod_already_on_a_node_changes_nothing(client):
    objs = [node("n0"), node("n1"), pod("p", gpu=8, node="n1", phase="Running"), bind_request("p", "n0"), pod("q", gpu=8)]
    out = decide(client, objs)
    assert out["bindings"] == [{"pod": "default/q", "node": "n0", "job": "default/q"}]


def test_a_bind_request_naming_a_node_the_snapshot_lacks_is_left_out_with_a_warning(client):
    # nodes scale down while a cluster is dumped: the pod stays Pending and is scheduled anew
    r = post(client, [node("n0"), pod("p", gpu=8), bind_request("p", "nx")])
    assert r.status_code == 200, r.text
    assert r.json()["bindings"] == [{"pod": "default/p", "node": "n0", "job": "default/p"}]
    assert any("Pod default/p on node 'nx'" in w for w in r.json()["warnings"])


def test_a_bind_request_with_an_unknown_phase_is_a_422_at_its_field(client):
    r = post(client, [node("n0"), pod("p", gpu=8), bind_request("p", "n0", phase="Done")])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/2/status/phase"


def test_a_bind_request_on_a_missing_node_is_skipped_whatever_the_order(client):
    answers = []
    for brs in ([bind_request("p", "n0"), bind_request("p", "nx")], [bind_request("p", "nx"), bind_request("p", "n0")]):
        r = post(client, [node("n0"), pod("p", gpu=8), *brs])
        assert r.status_code == 200 and any("BindRequest(s) select nodes" in w for w in r.json()["warnings"])
        answers.append((r.json()["bindings"], [j["state"] for j in r.json()["jobs"]]))
    assert answers[0] == answers[1] == ([], ["Running"])  # Binding on n0 either way (ready, as KAI counts it)


def test_the_first_bind_request_in_flight_decides_the_node(client):
    objs = [node("n0"), node("n1"), pod("p", gpu=8), bind_request("p", "n1"), bind_request("p", "n0"), pod("q", gpu=8)]
    out = decide(client, objs)
    assert out["bindings"] == [{"pod": "default/q", "node": "n0", "job": "default/q"}]  # p holds n1


@pytest.mark.parametrize("key", ["podName", "selectedNode"])
def test_a_bind_request_with_an_empty_name_is_a_422_at_its_field(client, key):
    br = bind_request("p", "n0")
    br["spec"][key] = ""
    r = post(client, [node("n0"), pod("p", gpu=8), br])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == f"/objects/2/spec/{key}"


def test_a_finished_bind_request_is_not_checked(client):
    br = bind_request("p", "", phase="Succeeded")
    out = decide(client, [node("n0"), pod("p", gpu=8), br])
    assert out["bindings"] == [{"pod": "default/p", "node": "n0", "job": "default/p"}]
