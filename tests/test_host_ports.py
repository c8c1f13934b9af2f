"""Host ports (kube-scheduler's NodePorts filter, run by Volcano's predicates plugin): a
pod's (hostIP, protocol, hostPort) may not conflict with one held on the node."""

from __future__ import annotations

import orjson

from tests.kube import node, pod, podgroup, request

CONF = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}, {"name": "nodeorder"}]}]}


def with_port(p: dict, port: int, protocol: str | None = None, ip: str | None = None) -> dict:
    entry: dict = {"containerPort": port, "hostPort": port}
    if protocol:
        entry["protocol"] = protocol
    if ip:
        entry["hostIP"] = ip
    p["spec"]["containers"][0].setdefault("ports", []).append(entry)
    return p


def decide(client, objs, config=CONF):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=config)), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def placed(out):
    return {b["pod"]: b["node"] for b in out["bindings"]}


def test_host_port_two_pods_with_the_same_port_take_two_nodes(client):
    objs = [node("a"), node("b"), with_port(pod("p0"), 80), with_port(pod("p1"), 80)]
    out = placed(decide(client, objs))
    assert len(out) == 2 and out["default/p0"] != out["default/p1"]


def test_host_port_held_by_a_running_pod_keeps_the_node_out(client):
    objs = [node("a"), node("b"), with_port(pod("r", node="a", phase="Running"), 80), with_port(pod("p"), 80)]
    assert placed(decide(client, objs)) == {"default/p": "b"}
    objs = [node("a"), with_port(pod("r", node="a", phase="Running"), 80), with_port(pod("p"), 80)]
    assert placed(decide(client, objs)) == {}


def test_host_port_other_protocol_or_other_host_ip_does_not_conflict(client):
    objs = [node("a"), with_port(pod("r", node="a", phase="Running"), 53, "UDP", "10.0.0.1"),
            with_port(pod("tcp"), 53), with_port(pod("other-ip"), 53, "UDP", "10.0.0.2")]  # fmt: skip
    assert placed(decide(client, objs)) == {"default/tcp": "a", "default/other-ip": "a"}


def test_host_port_any_address_conflicts_with_every_address(client):
    objs = [node("a"), with_port(pod("r", node="a", phase="Running"), 53, "UDP", "10.0.0.1"), with_port(pod("any"), 53, "UDP")]
    assert placed(decide(client, objs)) == {}


def test_host_port_gang_of_identical_pods_needs_one_node_each(client):
    # three pods of one gang ask for port 9000: on two nodes the gang (minMember 3) cannot start
    objs = [node("a"), node("b"), podgroup("g", min_member=3)] + [with_port(pod(f"g-{i}", group="g"), 9000) for i in range(3)]
    assert placed(decide(client, objs)) == {}
    objs.insert(2, node("c"))
    assert sorted(placed(decide(client, objs)).values()) == ["a", "b", "c"]


def test_host_port_freed_by_an_eviction_lets_the_preemptor_in(client):
    # the victim holds the whole node and port 80; once it is evicted (Releasing) its port
    # counts as freed, so the preemptor that needs both is nominated there
    from tests.kube import priority_class

    objs = [node("a"), priority_class("high", 1000), with_port(pod("low", node="a", phase="Running", cpu="64", priority=1), 80),
            with_port(pod("high", priority_class="high", cpu="64"), 80)]  # fmt: skip
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
             {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip
    for actions in ("allocate, preempt", "allocate, gangpreempt"):
        out = decide(client, objs, {"actions": actions, "tiers": tiers})
        assert [e["pod"] for e in out["evictions"]] == ["default/low"], actions
        assert [n["pod"] for n in out["nominations"]] == ["default/high"], actions


def test_host_port_conflict_alone_evicts_the_port_holder(client):
    # the preemptor fits the node by resources but a lower-priority pod holds its port: the
    # gang-aware path finds no placement without a victim, evicts the port holder and keeps
    # it evicted (its port is in use by the placement); Volcano's normal preempt takes the
    # node as a candidate (a port conflict is resolvable) and evicts until the preemptor
    # fits with every predicate (preemptorFitsOnNode), so it evicts the port holder too
    from tests.kube import priority_class

    objs = [node("a"), priority_class("high", 1000), with_port(pod("low", node="a", phase="Running", cpu="1", priority=1), 80),
            with_port(pod("high", priority_class="high", cpu="1"), 80)]  # fmt: skip
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
             {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip
    for actions in ("allocate, gangpreempt", "allocate, preempt"):
        out = decide(client, objs, {"actions": actions, "tiers": tiers})
        assert [e["pod"] for e in out["evictions"]] == ["default/low"], actions
        assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("default/high", "a")], actions


def with_init_port(p: dict, port: int, *, sidecar: bool) -> dict:
    init: dict = {"name": "init", "image": "x", "ports": [{"containerPort": port, "hostPort": port}]}
    if sidecar:
        init["restartPolicy"] = "Always"
    p["spec"]["initContainers"] = [init]
    return p


def test_host_port_of_a_running_pods_sidecar_keeps_the_node_out(client):
    """Rule (``GetHostPorts``: the host ports of init containers with ``restartPolicy:
    Always`` count, as the pod's own): a running pod's sidecar holding port 80 on the only
    node keeps a pod asking for 80 off it; a plain init container's port (it has exited)
    does not."""
    for sidecar, want in ((True, {}), (False, {"default/p": "a"})):
        objs = [node("a"), with_init_port(pod("r", node="a", phase="Running"), 80, sidecar=sidecar), with_port(pod("p"), 80)]
        assert placed(decide(client, objs)) == want, sidecar


def test_host_port_of_a_pending_pods_sidecar_is_its_own(client):
    """Rule: the pending pod's sidecar port counts against the node's: a pod whose sidecar asks
    for 80 does not go beside a running pod holding 80."""
    objs = [node("a"), node("b"), with_port(pod("r", node="a", phase="Running"), 80),
            with_init_port(pod("p"), 80, sidecar=True)]  # fmt: skip
    assert placed(decide(client, objs)) == {"default/p": "b"}
