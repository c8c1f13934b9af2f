"""Volcano's ``predicate.*Enable`` arguments (``predicates.go`` ``New``: ``Arguments.GetBool``,
each true unless set): a kube-scheduler filter switched off is not built, so it keeps no pod
off a node. One rule test per flag, on a node only that filter refuses."""

from __future__ import annotations

import pytest

from tests.kube import node, pod, post_decision

SPREAD = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
          "labelSelector": {"matchLabels": {"app": "web"}}}  # fmt: skip


def conf(flag: str | None, value: object = False) -> dict:
    args = {flag: value} if flag else {}
    return {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates", "arguments": args}]}]}


def cluster(flag: str) -> list[dict]:
    """Node a, which only the filter ``flag`` switches off refuses to pod ``w``."""
    if flag == "predicate.NodeAffinityEnable":
        return [node("a"), pod("w", extra_spec={"nodeSelector": {"disk": "ssd"}})]
    if flag == "predicate.TaintTolerationEnable":
        return [node("a", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]), pod("w")]
    if flag == "predicate.NodePortsEnable":
        port = {"containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 80, "hostPort": 80}],
                                "resources": {"requests": {"cpu": "1"}}}]}  # fmt: skip
        return [node("a"), pod("r", node="a", phase="Running", extra_spec=port), pod("w", extra_spec=port)]
    if flag == "predicate.PodAffinityEnable":
        anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}}  # fmt: skip
        return [node("a"), pod("r", node="a", phase="Running", labels={"app": "db"}), pod("w", extra_spec=anti)]
    assert flag == "predicate.PodTopologySpreadEnable"
    return [node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2"}, unschedulable=True),
            pod("r", node="a", phase="Running", labels={"app": "web"}),
            pod("w", labels={"app": "web"}, extra_spec={"topologySpreadConstraints": [SPREAD]})]  # fmt: skip


FLAGS = ["predicate.NodeAffinityEnable", "predicate.TaintTolerationEnable", "predicate.NodePortsEnable",
         "predicate.PodAffinityEnable", "predicate.PodTopologySpreadEnable"]  # fmt: skip


@pytest.mark.parametrize("flag", FLAGS)
def test_a_predicate_switched_off_keeps_no_pod_off_a_node(client, flag: str) -> None:
    objs = cluster(flag)
    placed = lambda out: {b["pod"]: b["node"] for b in out["bindings"]}  # noqa: E731
    assert placed(post_decision(objs, conf(None), client=client)) == {}  # the filter keeps w off a
    assert placed(post_decision(objs, conf(flag, "true"), client=client)) == {}
    out = post_decision(objs, conf(flag, False), client=client)
    assert placed(out) == {"default/w": "a"}
    assert not any(flag in w for w in out["warnings"])  # (read: not listed as unread)
