"""KAI's task order as the kai profile applies it (``app.kai.jobs.task_key``): the kubeflow
plugin's TaskOrderFn, then ray's, then taskorder's (``kai.scheduler/task-priority``), each
deciding only where it tells two pods apart; a task-priority label that is not an integer
(``strconv.Atoi`` fails) puts its pod after every pod with a valid label and before pods
without one."""

from __future__ import annotations

import pytest

from app.ingest.kube import kai_task_priority
from app.ingest.request import read_request
from app.kai.jobs import sort_tasks
from app.model.cluster import UNPARSABLE_TASK_PRIORITY
from app.settings import Settings
from tests.kube import pod, request

ROLE, RAY = "training.kubeflow.org/job-role", "ray.io/node-type"
TP = "kai.scheduler/task-priority"


def _order(*pods: dict) -> tuple[list[str], list[str]]:
    c = read_request(request(list(pods)), Settings()).cluster
    return [t.name for t in sort_tasks(c.tasks)], c.warnings


def test_kai_task_order_kubeflow_master_before_ray_head():
    """kubeflow's TaskOrderFn comes first in KAI's plugin list: a master beats a ray head
    even when the head has the higher task-priority."""
    names, _ = _order(pod("head", labels={RAY: "head", TP: "5"}), pod("master", labels={ROLE: "master"}),
                      pod("worker", labels={TP: "9"}))  # fmt: skip
    assert names == ["master", "head", "worker"]


def test_kai_task_order_unparsable_task_priority_after_valid_before_none():
    names, warnings = _order(pod("none"), pod("bad", labels={TP: "high"}), pod("low", labels={TP: "-3"}))
    assert names == ["low", "bad", "none"]
    assert any("1 pod(s) have a kai.scheduler/task-priority label that is not an integer (e.g. Pod default/bad)" in w
               for w in warnings)  # fmt: skip


@pytest.mark.parametrize(("value", "read"), [("5", 5), ("+5", 5), ("-12", -12), ("007", 7), (" 5", None), ("1_0", None),
                                             ("5.0", None), ("", None), ("9223372036854775807", 2**63 - 1),
                                             ("9223372036854775808", None)])  # fmt: skip
def test_kai_task_priority_is_read_as_go_atoi_reads_it(value: str, read: int | None) -> None:
    assert kai_task_priority(value) == (UNPARSABLE_TASK_PRIORITY if read is None else read)
