"""KAI's GPU reservation pods hold no GPU on their node (``node_info.go`` ``addTaskResources``).

Every GPU KAI shares by fraction has a reservation pod (label ``app: kai-resource-reservation``)
asking a whole ``nvidia.com/gpu``; KAI counts that GPU through the fractions of its group, never
through the reservation pod, so the ``kai`` profile takes the pod's GPU out of its node's
accounting (``app.kai.gpu_sharing.reservation_pods_hold_no_gpu``). Counting both made a
2-GPU node with one shared GPU look full.
"""

from __future__ import annotations

import copy
from typing import Any
from unittest.mock import patch

import orjson
import pytest

from app.ingest import build
from tests.kube import node, pod, request
from tests.test_kai import kai_queue

KS = {"schedulerName": "kai-scheduler"}


def shared_gpu_cluster() -> list[dict[str, Any]]:
    """n1 (2 GPUs): a running half-GPU pod on group g1 and g1's reservation pod; a pending
    whole-GPU pod of q1."""
    frac = pod("frac", node="n1", phase="Running", gpu=None, labels={"kai.scheduler/queue": "q1", "runai-gpu-group": "g1"},
               annotations={"gpu-fraction": "0.5"}, extra_spec=KS)  # fmt: skip
    res = pod("res", ns="kai-resource-reservation", node="n1", phase="Running", gpu=1,
              labels={"app": "kai-resource-reservation", "runai-gpu-group": "g1"}, extra_spec=KS)  # fmt: skip
    new = pod("new", gpu=1, labels={"kai.scheduler/queue": "q1"}, extra_spec=KS)
    return [node("n1", gpu=2), kai_queue("q1", -1), frac, res, new]


@pytest.mark.parametrize("bulk", [True, False], ids=["pods as columns", "pods as objects"])
def test_a_reservation_pods_gpu_is_not_counted_on_its_node(client: Any, bulk: bool) -> None:
    with patch.object(build, "BULK", bulk):
        r = client.post("/v1/decisions", content=orjson.dumps(request(shared_gpu_cluster(), config={"profile": "kai"})),
                        headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200
    assert [(b["pod"], b["node"]) for b in r.json()["bindings"]] == [("default/new", "n1")]


def test_two_simulated_cycles_do_not_take_the_gpu_out_twice(client: Any) -> None:
    """``/v1/simulate`` opens a session per cycle over one cluster: the reservation pod's GPU
    is taken out once (its request row is zeroed), so a second pending whole-GPU pod (the
    node's last GPU is now the first one's) stays pending in cycle 2."""
    objs = shared_gpu_cluster()
    second = copy.deepcopy(objs[-1])
    second["metadata"]["name"] = "new2"
    body = request([*objs, second], config={"profile": "kai"}) | {"cycles": 2}
    r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    bound = [b["pod"] for c in r.json()["cycles"] for b in c["bindings"]]
    assert bound == ["default/new"]


@pytest.mark.parametrize(("room_in_g1", "bound"), [(True, True), (False, False)])
def test_a_fraction_pod_opening_a_new_gpu_group_needs_a_second_pod_slot(client: Any, room_in_g1: bool, bound: bool) -> None:
    """predicates.go ``checkMaxPodsWithGpuGroupReservation``: n1 has one free pod slot. A
    half-GPU pod that joins g1 (half free) needs only its own slot; when g1 is full it would
    open a new group, whose reservation pod needs a second slot: not placed."""
    objs = shared_gpu_cluster()[:-1]
    objs[0]["status"]["allocatable"]["pods"] = objs[0]["status"]["capacity"]["pods"] = "3" if room_in_g1 else "4"
    if not room_in_g1:
        full = copy.deepcopy(objs[2])
        full["metadata"]["name"] = "frac2"
        objs.append(full)
    objs.append(pod("half", gpu=None, labels={"kai.scheduler/queue": "q1"}, annotations={"gpu-fraction": "0.5"}, extra_spec=KS))
    out = client.post("/v1/decisions", content=orjson.dumps(request(objs, config={"profile": "kai"})),
                      headers={"Content-Type": "application/json"}).json()  # fmt: skip
    assert [b["pod"] for b in out["bindings"]] == (["default/half"] if bound else [])
