"""Volcano's pod request tables (``GetPodResourceRequest``, ``GetPodResourceWithoutInitContainers``),
transcribed as ``POST /v1/decisions`` verdicts of the ``volcano`` profile.

Source: volcano-sh/volcano at ed72c7c815a9fd547a787134676f73d42e9d049c:

* ``pkg/scheduler/api/pod_info_test.go`` ``TestGetPodResourceRequest`` (every row) and
  ``TestGetPodResourceWithoutInitContainers`` (the rows whose rule the scheduler uses);
* read with ``pkg/scheduler/api/pod_info.go``: ``GetPodResourceRequest`` (68-72),
  ``aggregateAllContainerResourceRequests`` (82-128: regular containers summed; init
  containers in order, a restartable one (``restartPolicy: Always``) added to the sum and to
  the running sidecar sum, which then competes; a regular one competes as its request plus
  the sidecars started before it; the sum maxed with the largest competitor; one ``pods``),
  ``amendResourceAccordingToPodFeatures`` (310-339: under the ``PodLevelResources`` gate
  the pod-level ``spec.resources.requests`` of cpu, memory and hugepages-* replace the
  containers' aggregate; ``spec.overhead`` added), ``GetPodResourceWithoutInitContainers``
  (248-252); ``api/job_info.go`` ``NewTaskInfo`` (207-230: ``InitResreq`` is
  ``GetPodResourceRequest``, and ``Resreq`` is the same object); ``api/resource_info.go``
  ``LessEqualWithResourcesName`` (530-560: cpu and memory always compared, each scalar of the
  request compared with the node's, 0 where the node lacks it; slack 0.1 milli-unit).

How a Go row maps to a decision: allocate (``actions/allocate/allocate.go:985-993``
``predicate``) puts a task on a node only if ``task.InitResreq`` is within the node's
``FutureIdle``. Each row's pod (Go's spec; containers Go leaves unnamed are ``c<i>``, init
containers ``i<i>``) is a
pending pod posted with one Node whose allocatable is exactly what Go's expected ``Resource``
holds (cpu, memory, hugepages; 110 pods): it binds. Then, for each of cpu, memory and every
hugepage the row counts above 0, a Node short by one unit (1m, 1 byte) of that one resource:
not bound. So the pod is placed iff the node holds what Volcano counts, no less. Go's
feature gate: Volcano's scheduler (Kubernetes v1.36.1) runs with ``PodLevelResources`` on;
Go's rows with the gate off have no pod-level resources, so the gate changes nothing there.

A Running pod holds its ``Resreq`` on its node (``NodeInfo.addTask``), and ``Resreq`` is
``GetPodResourceRequest`` too, init containers included: shown by
``test_a_running_pod_holds_its_init_containers_peak``.

Not transcribed:

* ``TestGetPodResourceWithoutInitContainers`` "get resource for pod with init containers"
  (expected 3000m / 2G, the init containers left out): ``GetPodResourceWithoutInitContainers``
  has no caller in ``pkg/scheduler`` (only ``example/kubecon-2019-china``); a task's
  ``Resreq`` and ``InitResreq`` are both ``GetPodResourceRequest`` (``NewTaskInfo``), so no
  decision counts a pod without its init containers. Its contrary, what the scheduler holds
  for that pod, is ``test_a_running_pod_holds_its_init_containers_peak``. The other four rows
  have no init containers, so ``GetPodResourceRequest`` gives the same resources plus the pod
  slot: they are transcribed as that request (the pod slot is
  ``tests/test_volcano_node_accounting.py``'s).
* ``TestGetPodResourceLimit``: already listed in ``tests/test_volcano_upstream_misc.py`` (read
  only by the ``usage`` plugin, which Gangplank does not model). ``TestGetGPUIndex`` and
  ``TestGetPodResourceWithResize``: transcribed in ``tests/test_volcano_upstream_misc.py``.
* The ``pods: 1`` of each expected ``Resource``: shown once, by
  ``tests/test_volcano_node_accounting.py`` (``GetPodResourceRequest`` adds one ``pods``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import node, pod, post_decision

VOLCANO = {"profile": "volcano"}
ALWAYS = "Always"


def _c(name: str, cpu: str | None = None, memory: str | None = None, *, restart: str | None = None) -> dict:
    req: dict[str, str] = {}
    if cpu is not None:
        req["cpu"] = cpu
    if memory is not None:
        req["memory"] = memory
    out: dict[str, Any] = {"name": name, "image": "x", "resources": {"requests": req}}
    if restart:
        out["restartPolicy"] = restart
    return out


def _pod(name: str, containers: list[dict], inits: list[dict] | None = None, *, resources: dict | None = None,
         overhead: dict | None = None, node_name: str | None = None) -> dict:  # fmt: skip
    p = pod(name, node=node_name)
    p["spec"]["containers"] = containers
    if inits:
        p["spec"]["initContainers"] = inits
    if resources is not None:
        p["spec"]["resources"] = {"requests": resources}
    if overhead is not None:
        p["spec"]["overhead"] = overhead
    return p


def _node(alloc: dict[str, str]) -> dict:
    n = node("n1", gpu=None, cpu=alloc["cpu"], memory=alloc["memory"])
    extra = {k: v for k, v in alloc.items() if k not in ("cpu", "memory")}
    n["status"]["allocatable"] = {**n["status"]["allocatable"], **extra}
    n["status"]["capacity"] = dict(n["status"]["allocatable"])
    return n


def _binds(p: dict, alloc: dict[str, str]) -> bool:
    out = post_decision([_node(alloc), p], VOLCANO)
    return {b["pod"] for b in out["bindings"]} == {f"default/{p['metadata']['name']}"}


# -- pod_info_test.go TestGetPodResourceRequest ----------------------------------------------
# Go's expected Resource, as (cpu millicores, memory bytes, {hugepage: bytes}); pods: 1 left out.
GI, MI = 1024**3, 1024**2
G = 10**9
HP = {"hugepages-1Mi": 2 * GI, "hugepages-1Ki": 2 * GI}

REQUEST_ROWS: list[tuple[str, dict, tuple[int, int, dict[str, int]]]] = [
    ("get resource for pod without init containers",
     _pod("p", [_c("c0", "1000m", "1G"), _c("c1", "2000m", "1G")]), (3000, 2 * G, {})),
    ("get resource for pod with init containers",
     _pod("p", [_c("c0", "1000m", "1G"), _c("c1", "2000m", "1G")],
          [_c("i0", "2000m", "5G"), _c("i1", "2000m", "1G")]), (3000, 5 * G, {})),
    # restartable init + regular container
    ("restartable init container",
     _pod("p", [_c("container-1", "1")], [_c("restartable-init-1", "1", restart=ALWAYS)]), (2000, 0, {})),
    # max(5, restartable init containers (3+2+1) + regular (1)) = 7
    ("multiple restartable init containers",
     _pod("p", [_c("container-1", "1")],
          [_c("init-1", "5"), _c("restartable-init-1", "1", restart=ALWAYS),
           _c("restartable-init-2", "2", restart=ALWAYS), _c("restartable-init-3", "3", restart=ALWAYS)]),
     (7000, 0, {})),
    # init-2 requires 5 + the restartable init containers started before it (1+2) = 8
    ("multiple restartable and regular init containers",
     _pod("p", [_c("container-1", "1")],
          [_c("init-1", "5"), _c("restartable-init-1", "1", restart=ALWAYS),
           _c("restartable-init-2", "2", restart=ALWAYS), _c("init-2", "5"),
           _c("restartable-init-3", "3", restart=ALWAYS)]),
     (8000, 0, {})),
    # max(100 + 10, 200 + 10) = 210
    ("restartable-init, init and regular",
     _pod("p", [_c("container-1", "100")], [_c("restartable-init-1", "10", restart=ALWAYS), _c("init-1", "200")]),
     (210_000, 0, {})),
    ("restartable-init, init and regular containers with pod-level resources",
     _pod("p", [_c("container-1", "100")], [_c("restartable-init-1", "10", restart=ALWAYS), _c("init-1", "200")],
          resources={"cpu": "250", "memory": "100Mi", "hugepages-1Mi": "2Gi", "hugepages-1Ki": "2Gi"}),
     (250_000, 100 * MI, HP)),
    ("restartable-init, init and regular containers with pod-level resources and overhead",
     _pod("p", [_c("container-1", "100")], [_c("restartable-init-1", "10", restart=ALWAYS), _c("init-1", "200")],
          resources={"cpu": "250", "memory": "100Mi"}, overhead={"cpu": "250", "memory": "100Mi"}),
     (500_000, 200 * MI, {})),
]

# -- pod_info_test.go TestGetPodResourceWithoutInitContainers (rows without init containers) -
WITHOUT_INIT_ROWS: list[tuple[str, dict, tuple[int, int, dict[str, int]]]] = [
    ("get resource for pod without init containers",
     _pod("p", [_c("c0", "1000m", "1G"), _c("c1", "2000m", "1G")]), (3000, 2 * G, {})),
    ("get resource for pod with overhead",
     _pod("p", [_c("c0", "1000m", "1G"), _c("c1", "2000m", "1G")], overhead={"cpu": "500m", "memory": "1G"}),
     (3500, 3 * G, {})),
    ("get resource for pod with pod-level resources greater than aggregate container resources",
     _pod("p", [_c("c0", "1000m", "1G"), _c("c1", "2000m", "1G")],
          resources={"cpu": "4000m", "memory": "4G", "hugepages-1Mi": "2Gi", "hugepages-1Ki": "2Gi"}),
     (4000, 4 * G, HP)),
    # pod-level cpu only (Go's BuildResourceList("4000m", "") names no memory): memory is the
    # containers' 2G, plus the overhead
    ("get resource for pod with pod-level resources and overhead",
     _pod("p", [_c("c0", "1000m", "1G"), _c("c1", "2000m", "1G")], resources={"cpu": "4000m"},
          overhead={"cpu": "1000m", "memory": "1G"}),
     (5000, 3 * G, {})),
]


def _alloc(cpu_m: int, mem: int, scalars: dict[str, int]) -> dict[str, str]:
    # a memory-free request still needs a node with some memory (Go's expected 0 fits any)
    return {"cpu": f"{cpu_m}m", "memory": str(mem or GI), **{k: str(v) for k, v in scalars.items()}}


def _shorts(cpu_m: int, mem: int, scalars: dict[str, int]) -> list[tuple[str, dict[str, str]]]:
    """The node one unit short of the request in one counted resource, for each."""
    out = [("cpu", _alloc(cpu_m - 1, mem, scalars))]
    if mem:
        out.append(("memory", {**_alloc(cpu_m, mem, scalars), "memory": str(mem - 1)}))
    for k, v in scalars.items():
        out.append((k, {**_alloc(cpu_m, mem, scalars), k: str(v - 1)}))
    return out


def _check(p: dict, expected: tuple[int, int, dict[str, int]]) -> None:
    assert _binds(p, _alloc(*expected)), "the node holding exactly Volcano's request must take the pod"
    for what, alloc in _shorts(*expected):
        assert not _binds(p, alloc), f"a node one unit short of the pod's {what} must not take it"


@pytest.mark.parametrize(("name", "p", "expected"), REQUEST_ROWS, ids=[r[0] for r in REQUEST_ROWS])
def test_a_pod_asks_its_containers_sum_maxed_with_each_init_step_then_pod_level_and_overhead(
        name: str, p: dict, expected: tuple[int, int, dict[str, int]]) -> None:  # fmt: skip
    """pod_info_test.go TestGetPodResourceRequest (each row): a pending pod is placed on a node
    iff the node holds its ``InitResreq`` (``GetPodResourceRequest``): regular containers
    summed; each restartable init container added to the sum and to the sidecar sum; each
    init step (a regular init container plus the sidecars started before it, or the sidecar
    sum) competing with the sum element-wise; then pod-level cpu / memory / hugepages
    replacing the aggregate; then the overhead added."""
    _check(p, expected)


@pytest.mark.parametrize(("name", "p", "expected"), WITHOUT_INIT_ROWS, ids=[r[0] for r in WITHOUT_INIT_ROWS])
def test_a_pod_without_init_containers_asks_its_containers_then_pod_level_and_overhead(
        name: str, p: dict, expected: tuple[int, int, dict[str, int]]) -> None:  # fmt: skip
    """pod_info_test.go TestGetPodResourceWithoutInitContainers (the rows without init
    containers): ``amendResourceAccordingToPodFeatures``, which ``GetPodResourceRequest``
    shares: pod-level requests replace only the resources they name (cpu, memory,
    hugepages-*), the rest stays the containers' sum; the overhead is added after. The
    pending pod is placed on a node iff the node holds that request."""
    _check(p, expected)


def test_a_running_pod_holds_its_init_containers_peak() -> None:
    """pod_info_test.go TestGetPodResourceWithoutInitContainers "get resource for pod with init
    containers", as the scheduler counts that pod: its 3000m / 2G (init containers left out)
    is no task's, for ``NewTaskInfo`` sets ``Resreq`` = ``InitResreq`` =
    ``GetPodResourceRequest`` (3000m / 5G: init container 0's 5G). So the same pod, Running on
    a node of 4 CPU / 6G, holds 5G there (``addTask``): a pending pod of 1G binds beside it,
    one of 1G + 1 byte does not (with 2G held, 4G would be left)."""
    running = _pod("r", [_c("c0", "1000m", "1G"), _c("c1", "2000m", "1G")],
                   [_c("i0", "2000m", "5G"), _c("i1", "2000m", "1G")], node_name="n1")  # fmt: skip

    def binds(mem: int) -> bool:
        out = post_decision([_node({"cpu": "4", "memory": str(6 * G)}), running,
                             _pod("p", [_c("c0", "1", str(mem))])], VOLCANO)  # fmt: skip
        return "default/p" in {b["pod"] for b in out["bindings"]}

    assert binds(G)
    assert not binds(G + 1)
