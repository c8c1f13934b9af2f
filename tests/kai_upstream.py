"""KAI-Scheduler's Go test tables (``tests/kai_cases/*.yaml``) as Gangplank requests.

Each case becomes Kubernetes objects, built with the defaults of KAI's Go test builders
(``pkg/scheduler/test_utils``):

* nodes: ``gpus`` GPUs (default 0), 20000 CPUs and 20G memory unless ``cpuMillis`` /
  ``cpuMemory`` say otherwise (both are parsed as quantities, as the Go builder does);
* queues: KAI ``Queue`` objects created a minute apart in table order; GPU quota
  ``deservedGPUs`` (0), GPU limit ``maxAllowedGPUs`` (0 = unlimited), GPU over-quota weight
  ``gpuOverQuotaWeight`` (0); CPU and memory quota and limit -1 (unlimited) unless set,
  weight 1. Without ``departments`` (and unless ``disableDefaultDepartment``) every queue's
  parent is a department ``default`` with GPU quota, limit and weight -1;
* jobs: sorted by priority (highest first, stable), created ``N - i`` minutes before now
  (or ``jobAgeInMinutes``); a KAI ``PodGroup`` with ``minMember`` = ``minAvailable`` or the
  number of tasks, the priority as a ``PriorityClass`` of that value, the pod sets as
  ``subGroups``; a job with an allocated pod has ``kai.scheduler/last-start-timestamp``
  one minute before now (the Go builder's ``LastStartTimestamp``);
* pods ``<job>-<i>`` (UID = name), 1 CPU and 1G unless the job says otherwise, the
  job's GPUs per task (or the task's ``requiredGPUs``); Running pods on their node;
* MIG: a task's ``requiredMigInstances`` are container requests (``BuildResourceList``), with
  ``received-resource-type: MigInstance`` when placed (``createPodOfTask``), but not the pod
  annotations ``BuildPod`` also writes: KAI reads those as a legacy MIG pod, a flag jobs_fake then
  resets to the task's ``IsLegacyMigTask``; ``isLegacyMigTask`` is the annotation
  ``nvidia.com/mig-1g.5gb: "0"`` (legacy, and no MIG instance requested, as the Go task);
  ``migStrategy`` / ``migInstances`` nodes: see :func:`mig_node`.
* DRA (``dra_fake.TestDRAObjects``): ``deviceClasses`` / ``resourceSlices`` / ``resourceClaims`` are
  ``resource.k8s.io/v1`` objects as ``test_utils_builder`` builds them (see :func:`dra_objects`); a task's
  ``resourceClaimNames`` / ``resourceClaimTemplates`` are the pod's ``spec.resourceClaims`` (and, for a
  template, ``status.resourceClaimStatuses``) as ``tasks_fake.BuildPod`` writes them. Between integration
  rounds the claims' status follows the tasks as KAI's ``dynamicresources`` plugin leaves it (see
  :func:`claim_statuses`).

The session runs the Go test's action list with the ``kai`` profile's defaults and the
Go test session's settings (``maxConsolidationPreemptees`` unlimited, staleness grace 0s
unless the case overrides it).

The answer maps back to KAI statuses: a binding → Binding, a nomination → Pipelined on
that node, an eviction → Releasing (with ``moveTo``: Pipelined on the new node), anything
else keeps its status. Integration cases run rounds as ``integration_tests_utils`` does.
"""

from __future__ import annotations

import copy
import glob
import math
import os
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import yaml

from app.plugins.predicates import term_matches
from tests.kube import NOW

HERE = os.path.join(os.path.dirname(__file__), "kai_cases")
BASE = 1_795_435_200.0  # 2026-11-23T12:00:00Z, the request's "now"
ALLOCATED = {"Running", "Bound", "Binding", "Allocated"}
ACTIVE_USED = ALLOCATED | {"Pipelined", "Releasing"}
UNLIMITED = -1


def stamp(seconds_before_now: float) -> str:
    import datetime as dt

    t = dt.datetime.fromtimestamp(BASE - seconds_before_now, tz=dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Case:
    file: str
    source: str
    test: str
    actions: list[str]
    integration: bool
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{os.path.basename(self.file)[:-5]}[{self.data['index']}]"


def load_cases() -> list[Case]:
    out = []
    for f in sorted(glob.glob(os.path.join(HERE, "*.yaml"))):
        with open(f) as fh:
            for doc in yaml.safe_load_all(fh):
                if not doc:
                    continue
                for c in doc["cases"]:
                    out.append(Case(f, doc["source"], doc["test"], list(doc["actions"]),
                                    bool(doc.get("integration")), c))  # fmt: skip
    return out


def _duration(text: str) -> float:
    text = str(text)
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    for u in ("ms", "s", "m", "h"):
        if text.endswith(u):
            return float(text[: -len(u)]) * units[u]
    return float(text)


def _num(v: Any) -> str:
    f = float(v)
    return str(int(f)) if f == int(f) else repr(f)


def queue_obj(name: str, created: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue",
            "metadata": {"name": name, "creationTimestamp": created}, "spec": spec}  # fmt: skip


def resources(gpu: tuple[float, float, float], cpu: tuple[float, float, float], mem: tuple[float, float, float]) -> dict:
    def r(t: tuple[float, float, float]) -> dict[str, float]:
        return {"quota": t[0], "limit": t[1], "overQuotaWeight": t[2]}

    return {"gpu": r(gpu), "cpu": r(cpu), "memory": r(mem)}


def build_objects(data: dict[str, Any], jobs_state: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The case (or the state of an integration round: ``jobs_state``) as objects."""
    objs: list[dict[str, Any]] = []
    for name in sorted(data.get("nodes") or {}):
        n = data["nodes"][name] or {}
        alloc = {"cpu": _num(n["cpuMillis"]) if n.get("cpuMillis") else "20000",
                 "memory": _num(n["cpuMemory"]) if n.get("cpuMemory") else "20G",
                 "pods": str(n.get("maxTaskNum", 110)), "nvidia.com/gpu": str(n.get("gpus", 0))}  # fmt: skip
        labels = {"kubernetes.io/hostname": name, AFFINITY_KEY: name, "nvidia.com/gpu.count": str(n.get("gpus", 0)),
                  "nvidia.com/gpu.memory": str(n.get("gpuMemory") or 100), **(n.get("labels") or {})}  # nodes_fake.buildNode
        capacity = alloc
        if n.get("migStrategy") or n.get("migInstances"):
            alloc, capacity, mig_labels = mig_node(n, alloc)
            labels = {**labels, **mig_labels, **(n.get("labels") or {})}
        objs.append({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": name, "labels": labels},
                     "status": {"allocatable": alloc, "capacity": capacity,
                                "conditions": [{"type": "Ready", "status": "True"}]}})  # fmt: skip
    departments = list(data.get("departments") or [])
    queues = [dict(q) for q in data.get("queues") or []]
    if not departments and not data.get("disableDefaultDepartment"):
        for q in queues:
            q["parentQueue"] = "default"
        departments = [{"name": "default", "deservedGPUs": UNLIMITED, "maxAllowedGPUs": UNLIMITED, "_weight": UNLIMITED}]
    for i, q in enumerate(queues):
        spec: dict[str, Any] = {"resources": resources(
            (q.get("deservedGPUs", 0), q.get("maxAllowedGPUs") or UNLIMITED, q.get("gpuOverQuotaWeight", 0)),
            (q.get("deservedCPUs", UNLIMITED), q.get("maxAllowedCPUs", UNLIMITED), 1),
            (q.get("deservedMemory", UNLIMITED), q.get("maxAllowedMemory", UNLIMITED), 1),
        )}  # fmt: skip
        if q.get("parentQueue"):
            spec["parentQueue"] = q["parentQueue"]
        if q.get("priority") is not None:
            spec["priority"] = q["priority"]
        objs.append(queue_obj(q["name"], stamp(-60 * i), spec))
    for i, d in enumerate(departments):
        weight = d.get("_weight", d.get("deservedGPUs", 0))
        spec = {"resources": resources(
            (d.get("deservedGPUs", 0), d.get("maxAllowedGPUs") or UNLIMITED, weight),
            (UNLIMITED, d.get("maxAllowedCPUs", UNLIMITED), 1),
            (UNLIMITED, d.get("maxAllowedMemory", UNLIMITED), 1),
        )}  # fmt: skip
        objs.append(queue_obj(d["name"], stamp(-60 * i - 1), spec))
    for t in data.get("topologies") or []:
        objs.append({"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": t["name"]},
                     "spec": {"levels": [{"nodeLabel": lv["nodeLabel"]} for lv in t["levels"]]}})  # fmt: skip
    jobs = jobs_state if jobs_state is not None else data.get("jobs") or []
    ordered = sorted(jobs, key=lambda j: -int(j.get("priority", 0)))  # Go's stable sort by priority
    priorities = sorted({int(j.get("priority", 0)) for j in ordered})
    for p in priorities:
        objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                     "metadata": {"name": f"kai-p{p}".replace("-p-", "-m")}, "value": p})  # fmt: skip
    for idx, j in enumerate(ordered):
        age = j.get("jobAgeInMinutes") or (len(ordered) - idx)
        ns = j.get("namespace") or "default"
        tasks = j.get("tasks") or []
        spec: dict[str, Any] = {"minMember": j.get("minAvailable", len(tasks)), "queue": j["queue"],
                                "priorityClassName": f"kai-p{int(j.get('priority', 0))}".replace("-p-", "-m")}  # fmt: skip
        if j.get("preemptibility"):
            spec["preemptibility"] = j["preemptibility"]
        if j.get("podSets"):
            spec["subGroups"] = [{"name": ps["name"], "minMember": ps["minAvailable"]} for ps in j["podSets"]]
            for sg, ps in zip(spec["subGroups"], j["podSets"], strict=True):  # a pod set's parent and topology
                sg.update(_sub_group_extras(ps))
            spec["subGroups"] += [{"name": s["name"], **_sub_group_extras(s)} for s in j.get("subGroupSets") or []]
            spec["minMember"] = sum(ps["minAvailable"] for ps in j["podSets"])
        if j.get("topologyConstraint"):
            tc = j["topologyConstraint"]
            spec["topologyConstraint"] = topology_constraint(tc)
        ann: dict[str, str] = {}
        if any(t.get("state") in ALLOCATED for t in tasks):
            ann["kai.scheduler/last-start-timestamp"] = stamp(60)
        if j.get("staleDuration"):
            ann["kai.scheduler/stale-podgroup-timestamp"] = stamp(_duration(j["staleDuration"]))
        objs.append({"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
                     "metadata": {"name": j["name"], "namespace": ns, "uid": j["name"], "annotations": ann,
                                  "creationTimestamp": stamp(60 * age)}, "spec": spec})  # fmt: skip
        for i, t in enumerate(tasks):
            objs.append(pod_obj(j, t, i, ns))
    objs += dra_objects(data, jobs)
    return objs


#: MIG (nodes_fake.buildNodeInfo, tasks_fake.BuildPod, jobs_fake): a node's mig-enabled label ("true" iff it
#: has a ``migStrategy``), its MIG strategy label, and the annotation that makes a pod a legacy MIG pod.
MIG_ENABLED_LABEL = "node-role.kubernetes.io/mig-enabled"
MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy"
LEGACY_MIG_ANNOTATION = "nvidia.com/mig-1g.5gb"


def mig_node(n: dict[str, Any], alloc: dict[str, str]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """A MIG node's allocatable, capacity and MIG labels as ``nodes_fake.buildNodeInfo`` builds them:
    ``migInstances`` (``{"nvidia.com/mig-1g.5gb": 2}``) in both (a 0 count too), ``nvidia.com/gpu`` 0
    allocatable on a ``mixed`` node (its capacity and ``nvidia.com/gpu.count`` keep ``gpus``); the
    mig-enabled label "true" when ``migStrategy`` is set, else "false", and the strategy label
    (nodes_fake sets both on every node: on a node without MIG fields they change nothing, so only
    nodes with ``migStrategy`` or ``migInstances`` get them here). ``gpuName`` is not read (nodes_fake
    does not either)."""
    alloc = dict(alloc)
    for res, count in (n.get("migInstances") or {}).items():
        alloc[res] = str(int(count))
    capacity = dict(alloc)
    if n.get("migStrategy") == "mixed":
        alloc["nvidia.com/gpu"] = "0"
    labels = {MIG_ENABLED_LABEL: "true" if n.get("migStrategy") else "false",
              MIG_STRATEGY_LABEL: n.get("migStrategy") or ""}
    return alloc, capacity, labels


#: tasks_fake.NodeAffinityKey: nodes_fake labels every node with it (value: the node's name, unless the
#: case's labels say otherwise) and a task's ``nodeAffinityNames`` are an ``In`` term on it.
AFFINITY_KEY = "kai.scheduler/type"


def topology_constraint(tc: dict[str, Any]) -> dict[str, str]:
    """A ``TopologyConstraintInfo`` ({topology, requiredLevel, preferredLevel}, each optional)
    as a KAI ``topologyConstraint``."""
    out = {"topology": tc.get("topology", "")}
    if tc.get("requiredLevel"):
        out["requiredTopologyLevel"] = tc["requiredLevel"]
    if tc.get("preferredLevel"):
        out["preferredTopologyLevel"] = tc["preferredLevel"]
    return out


def _sub_group_extras(sg: dict[str, Any]) -> dict[str, Any]:
    """``parent`` and ``topologyConstraint`` of a pod set or sub-group set, when the case sets them."""
    out: dict[str, Any] = {}
    if sg.get("parent"):
        out["parent"] = sg["parent"]
    if sg.get("topologyConstraint") is not None:
        out["topologyConstraint"] = topology_constraint(sg["topologyConstraint"])
    return out


def pod_obj(j: dict[str, Any], t: dict[str, Any], i: int, ns: str) -> dict[str, Any]:
    name = f"{j['name']}-{i}"
    req: dict[str, str] = {}
    ann = {"pod-group-name": j["name"]}
    if not j.get("isBestEffortJob"):
        req["cpu"] = _num(j["requiredCPUsPerTask"]) if j.get("requiredCPUsPerTask") else "1"
        req["memory"] = _num(j["requiredMemoryPerTask"]) if j.get("requiredMemoryPerTask") else "1G"
        gpus = t.get("requiredGPUs", j.get("requiredGPUsPerTask", 0)) or 0
        if float(gpus) == int(gpus):
            if gpus:
                req["nvidia.com/gpu"] = str(int(gpus))
        else:
            ann["gpu-fraction"] = repr(float(gpus))
        if j.get("requiredGpuMemory"):  # jobs_fake.CalcJobAndPodResources: the gpu-memory annotation (MiB)
            ann["gpu-memory"] = str(int(j["requiredGpuMemory"]))
        for res, count in (t.get("requiredMigInstances") or {}).items():  # BuildResourceList: MIG requests
            req[res] = str(int(count))
    if t.get("requiredMigInstances") and t.get("state", "Pending") in ACTIVE_USED:  # createPodOfTask
        ann["received-resource-type"] = "MigInstance"
    if t.get("isLegacyMigTask"):  # read as legacy MIG (PodInfo.updateLegacyMigResourceRequestFromAnnotations)
        ann[LEGACY_MIG_ANNOTATION] = "0"
    labels: dict[str, str] = {}
    if t.get("subGroup"):
        labels["kai.scheduler/subgroup-name"] = t["subGroup"]
    if t.get("priority") is not None:
        labels["kai.scheduler/task-priority"] = str(t["priority"])
    labels.update(t.get("podAffinityLabels") or {})  # tasks_fake.BuildPod puts PodAffinityLabels on the pod too
    state = t.get("state", "Pending")
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "x", "resources": {"requests": req}}]}
    meta: dict[str, Any] = {"name": name, "namespace": ns, "uid": name, "labels": labels, "annotations": ann,
                            "creationTimestamp": "2026-11-23T00:00:00Z"}  # fmt: skip
    phase = {"Running": "Running", "Bound": "Running", "Binding": "Running", "Releasing": "Running",
             "Failed": "Failed", "Succeeded": "Succeeded"}.get(state, "Pending")  # fmt: skip
    if state in ACTIVE_USED or state in ("Failed", "Succeeded"):
        if t.get("node"):
            spec["nodeName"] = t["node"]
    if ("gpu-fraction" in ann or "gpu-memory" in ann) and state in ACTIVE_USED and t.get("node"):
        # jobs_fake.resourceFractionCalc: the task's GPU groups, else a new group (a UUID) per device
        # (a gpu-memory task gets only the groups the case gives it: resourceFractionCalc is not called)
        groups = list(t.get("gpuGroups") or ([f"{name}-gpu{k}" for k in range(int(j.get("requiredMultiFractionDevicesPerTask", 1)))]
                                             if "gpu-fraction" in ann else []))  # fmt: skip
        if groups:
            labels["runai-gpu-group"] = groups[0]
        for g in groups[1:] if len(groups) > 1 else ():
            labels[f"runai-gpu-group/{g}"] = g
    if state == "Releasing":
        meta["deletionTimestamp"] = NOW
    if t.get("nodeAffinityNames"):
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": AFFINITY_KEY, "operator": "In", "values": list(t["nodeAffinityNames"])}]}
        ]}}}  # fmt: skip
    for kind, key in (("podAffinity", "podAffinityTopologyKey"), ("podAntiAffinity", "podAntiAffinityTopologyKey")):
        if t.get("podAffinityLabels") is not None and t.get(key):  # tasks_fake.applyPodAffinityLabels: one required term
            spec.setdefault("affinity", {})[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": t[key], "labelSelector": {"matchLabels": dict(t["podAffinityLabels"])}}]}  # fmt: skip
    status: dict[str, Any] = {"phase": phase}
    for claim in t.get("resourceClaimNames") or []:  # tasks_fake.BuildPod: a claim by name
        spec.setdefault("resourceClaims", []).append({"name": claim, "resourceClaimName": claim})
    for template, claim in (t.get("resourceClaimTemplates") or {}).items():  # a template, its claim in the status
        spec.setdefault("resourceClaims", []).append({"name": template, "resourceClaimTemplateName": template})
        status.setdefault("resourceClaimStatuses", []).append({"name": template, "resourceClaimName": claim})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


#: DRA (``dra_fake.TestDRAObjects``, ``test_utils_builder.getDeviceClasses`` / ``getResourceSlices`` /
#: ``getResourceClaims``): the API group, the driver every slice gets, the name of a claim's one request.
DRA_API = "resource.k8s.io/v1"
DRA_DRIVER = "nvidia.com/gpu"
DRA_REQUEST = "request"
#: advance's marks on a task with claims (the harness's own, no format field): its claims are reserved
#: for it and allocated on this node (DRA_HELD), or it left them (DRA_RELEASED), as KAI's
#: ``dynamicresources`` plugin's event handlers leave the claims when a round ends.
DRA_HELD = "_draHeldOn"
DRA_RELEASED = "_draReleased"


def dra_objects(data: dict[str, Any], jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The case's DRA objects as the Go builders make them (``getDRAObjects``: classes, slices, claims):

    * ``DeviceClass`` per name in ``deviceClasses``, with an empty spec (no selectors: every device
      matches it);
    * ``ResourceSlice`` per ``resourceSlices`` entry: driver ``nvidia.com/gpu`` whatever its
      ``deviceClassName`` (the builder does not read it), pool named after ``nodeName`` with generation 0
      and ``resourceSliceCount`` the number of slices in the whole case, ``nodeName`` (set even when
      empty, as the builder's ``ptr.To``), ``allNodes`` (false unless set), ``nodeSelector`` (verbatim, when
      set) and ``count`` devices named "0", "1", ... each with capacity ``gpu: 1``;
    * ``ResourceClaim`` per ``resourceClaims`` entry: ``namespace``, ``labels``, one request named
      "request", ``exactly: {deviceClassName, allocationMode: ExactCount, count}`` (count left out when 0,
      as ``omitempty``), and the status :func:`claim_statuses` gives (``claimStatus`` in round one).
    """
    objs: list[dict[str, Any]] = []
    for name in data.get("deviceClasses") or []:
        objs.append({"apiVersion": DRA_API, "kind": "DeviceClass",
                     "metadata": {"name": name, "resourceVersion": "0"}, "spec": {}})  # fmt: skip
    slices = data.get("resourceSlices") or []
    for sl in slices:
        spec: dict[str, Any] = {"driver": DRA_DRIVER,
                                "pool": {"name": sl.get("nodeName", ""), "generation": 0, "resourceSliceCount": len(slices)},
                                "nodeName": sl.get("nodeName", ""), "allNodes": bool(sl.get("allNodes"))}  # fmt: skip
        if sl.get("nodeSelector") is not None:
            spec["nodeSelector"] = copy.deepcopy(sl["nodeSelector"])
        spec["devices"] = [{"name": str(k), "capacity": {"gpu": {"value": "1"}}} for k in range(int(sl.get("count", 0)))]
        objs.append({"apiVersion": DRA_API, "kind": "ResourceSlice",
                     "metadata": {"name": sl["name"], "resourceVersion": "0"}, "spec": spec})  # fmt: skip
    statuses_ = claim_statuses(data, jobs)
    for c in data.get("resourceClaims") or []:
        exactly: dict[str, Any] = {"deviceClassName": c.get("deviceClassName", ""), "allocationMode": "ExactCount"}
        if int(c.get("count", 0)):
            exactly["count"] = int(c["count"])
        meta: dict[str, Any] = {"name": c["name"], "namespace": c.get("namespace", ""), "resourceVersion": "0"}
        if c.get("labels"):
            meta["labels"] = dict(c["labels"])
        claim: dict[str, Any] = {"apiVersion": DRA_API, "kind": "ResourceClaim", "metadata": meta,
                                 "spec": {"devices": {"requests": [{"name": DRA_REQUEST, "exactly": exactly}]}}}  # fmt: skip
        status = statuses_[(c.get("namespace", ""), c["name"])]
        if status:
            claim["status"] = status
        objs.append(claim)
    return objs


def _initial_claim_status(c: dict[str, Any]) -> dict[str, Any]:
    """A claim's ``claimStatus`` (v1 ``ResourceClaimStatus`` fields, verbatim), with
    ``randomReservedFor: n`` (``dra_fake.RandomReservedForReferences(n)``) as n ``reservedFor`` entries
    ``{resource: pods, name: pod-<i>, uid: <8 characters>}`` (Go's UIDs are random; these are fixed)."""
    status = copy.deepcopy(c.get("claimStatus") or {})
    n = status.pop("randomReservedFor", None)
    if n is not None:
        status["reservedFor"] = [{"resource": "pods", "name": f"pod-{i}", "uid": f"r{i:07d}"} for i in range(int(n))]
    return status


def task_claims(t: dict[str, Any]) -> list[str]:
    """The names of a task's claims: ``resourceClaimNames``, then the claims of its
    ``resourceClaimTemplates`` (``jobs_fake.getDraClaimsForPod``)."""
    return [*(t.get("resourceClaimNames") or []), *(t.get("resourceClaimTemplates") or {}).values()]


def claim_statuses(data: dict[str, Any], jobs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Each claim's status (key: namespace, name) in this round: its ``claimStatus``, changed as the earlier
    rounds' decisions changed it. ``runSchedulerOneRound`` copies each claim's status from the DRA manager
    after a round; the ``dynamicresources`` plugin had left it so (``allocateResourceClaim`` /
    ``deallocateResourceClaim``, run by ``Statement.Allocate`` / ``Pipeline`` / ``Evict``):

    * a task evicted (``DRA_RELEASED``) leaves each claim's ``reservedFor``; a claim no one is left in loses
      its ``allocation``;
    * then a task bound or pipelined (``DRA_HELD``: its node; a pipelined task stays so while Pending) is in
      each claim's ``reservedFor`` (``UpsertReservedFor``), and a claim without an allocation gets one on
      that node: the first devices (slice order, then device order) of the slices the node reaches
      (``nodeName``, ``allNodes``, or a ``nodeSelector`` term matching its labels) that no claim's allocation
      holds (the structured allocator picks the first free devices of its pools; the pools' order in Go is a
      map's, which only matters when a node reaches several), with the node selector ``createNodeSelector``
      gives a device whose slice has a ``nodeName`` (``matchFields metadata.name In [nodeName]``): every
      builder slice has one, an empty one for ``allNodes`` / ``nodeSelector`` slices (``ptr.To("")``), so such a
      claim is pinned to no node at all, as in Go. A claim no devices are left for is left as it was
      (``allocateResourceClaim`` fails and changes nothing).

    Tasks are taken in the case's job and task order.
    """
    out = {(c.get("namespace", ""), c["name"]): _initial_claim_status(c) for c in data.get("resourceClaims") or []}
    owners = []
    for j in jobs:
        ns = j.get("namespace") or "default"
        for i, t in enumerate(j.get("tasks") or []):
            pod = f"{j['name']}-{i}"
            keys = [(ns, name) for name in task_claims(t) if (ns, name) in out]
            owners.append((pod, t, keys))
    for pod, t, keys in owners:
        if not t.get(DRA_RELEASED):
            continue
        for k in keys:
            st = out[k]
            st["reservedFor"] = [r for r in st.get("reservedFor") or [] if not _is_pod_ref(r, pod)]
            if not st["reservedFor"]:  # deallocateResourceClaim; an empty list is left out (omitempty)
                st.pop("allocation", None)
                st.pop("reservedFor")
    for pod, t, keys in owners:
        node = t.get(DRA_HELD)
        if not node:
            continue
        for k in keys:
            st = out[k]
            if not st.get("allocation"):
                allocation = _allocate_claim(data, out, k, node)
                if allocation is None:
                    continue
                st["allocation"] = allocation
            refs = st.setdefault("reservedFor", [])
            if not any(_is_pod_ref(r, pod) for r in refs):
                refs.append({"resource": "pods", "name": pod, "uid": pod})
    return out


def _is_pod_ref(r: dict[str, Any], pod: str) -> bool:
    """A ``reservedFor`` entry naming the harness's pod (name = UID), as ``Upsert`` / ``RemoveReservedFor`` match it."""
    return r.get("resource") == "pods" and not r.get("apiGroup") and r.get("name") == pod and r.get("uid") == pod


def _allocate_claim(data: dict[str, Any], statuses_: dict[tuple[str, str], dict[str, Any]], key: tuple[str, str],
                    node: str) -> dict[str, Any] | None:  # fmt: skip
    """The allocation the structured allocator would give the claim on ``node`` (see :func:`claim_statuses`)."""
    claim = next(c for c in data.get("resourceClaims") or [] if (c.get("namespace", ""), c["name"]) == key)
    need = int(claim.get("count", 0))  # as the fake client leaves it: no API defaulting of a missing count to 1
    results = [r for st in statuses_.values() for r in ((st.get("allocation") or {}).get("devices") or {}).get("results") or []]
    held = {(r.get("driver"), r.get("pool"), r.get("device")) for r in results}
    labels = next((o["metadata"]["labels"] for o in build_objects({"nodes": {node: (data.get("nodes") or {}).get(node)}})
                   if o["kind"] == "Node"), {})  # fmt: skip
    picked: list[dict[str, Any]] = []
    pinned: list[str] = []  # the nodeName of the first device's slice
    for sl in data.get("resourceSlices") or []:
        if sl.get("nodeName"):
            reach = sl["nodeName"] == node
        elif sl.get("allNodes"):
            reach = True
        elif sl.get("nodeSelector") is not None:
            reach = _node_selector_matches(sl["nodeSelector"], node, labels)
        else:
            reach = False
        for k in range(int(sl.get("count", 0))) if reach else ():
            dev = (DRA_DRIVER, sl.get("nodeName", ""), str(k))
            if dev in held or len(picked) == need:
                continue
            picked.append({"request": DRA_REQUEST, "driver": dev[0], "pool": dev[1], "device": dev[2]})
            pinned = pinned or [sl.get("nodeName", "")]
    if len(picked) < need:
        return None
    return {"devices": {"results": picked}, "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": pinned}]}]}}  # fmt: skip


def _node_selector_matches(selector: dict[str, Any], node: str, labels: dict[str, str]) -> bool:
    """A v1 ``NodeSelector`` (terms ORed), matched as the predicates plugin matches a term."""
    at = SimpleNamespace(name=node, labels=labels)
    return any(term_matches(t, at) for t in selector.get("nodeSelectorTerms") or [])  # type: ignore[arg-type]


def _dra_mark(t: dict[str, Any], before: str, st: str, node: str) -> None:
    """advance's DRA marks on a task with claims (see :func:`claim_statuses`): an eviction
    (``DeallocateFunc``) releases its claims, a bind or pipeline (``AllocateFunc``) holds them on its node
    (an eviction that moves it, consolidation's ``moveTo``, does both)."""
    moved = st == "Pipelined" and before in ACTIVE_USED and before != "Pipelined"
    if (st == "Releasing" and before != "Releasing") or moved:
        t.pop(DRA_HELD, None)
        t[DRA_RELEASED] = True
    if st in ("Binding", "Pipelined") and st != before:
        t[DRA_HELD] = node


#: KAI's Go test session leaves scheduling signatures off (its scheduler turns them on).
SIGNATURES = False


def config(case: Case, actions: list[str] | None = None) -> dict[str, Any]:
    over = case.data.get("sessionOverrides") or {}
    sig = bool(over.get("useSchedulingSignatures", SIGNATURES))
    confs = [{"name": "consolidation", "arguments": {"maxConsolidationPreemptees": int(over.get("maxConsolidationPreemptees", 1_000_000)),
                                                     "useSchedulingSignatures": sig}},
             {"name": "preempt", "arguments": {"useSchedulingSignatures": sig}},
             {"name": "reclaim", "arguments": {"useSchedulingSignatures": sig}},
             {"name": "stalegangeviction", "arguments": {"defaultStalenessGracePeriod": str(over.get("stalenessGracePeriod", "0s"))}}]  # fmt: skip
    out = {"profile": "kai", "actions": ", ".join(actions or case.actions), "configurations": confs}
    for tier in (case.data.get("schedulerConf") or {}).get("tiers") or []:  # Mocks.SchedulerConf's placement
        for plugin in tier.get("plugins") or []:
            if plugin.get("name") == "nodeplacement" and plugin.get("arguments"):
                out["placementStrategy"] = {k: v for k, v in plugin["arguments"].items() if k in ("gpu", "cpu")}
    return out


def statuses(case_jobs: list[dict[str, Any]], answer: dict[str, Any]) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    """Each task's KAI status, node and GPU groups (a gpu-fraction pod) after the decision."""
    out: dict[str, tuple[str, str, tuple[str, ...]]] = {}
    for j in case_jobs:
        for i, t in enumerate(j.get("tasks") or []):
            out[f"{j['name']}-{i}"] = (t.get("state", "Pending"), t.get("node") or "", tuple(t.get("gpuGroups") or ()))

    def name(pod: str) -> str:
        return pod.split("/", 1)[1]

    for b in answer["bindings"]:
        out[name(b["pod"])] = ("Binding", b["node"], tuple(b.get("gpuGroups") or ()))
    for b in answer["nominations"]:
        out[name(b["pod"])] = ("Pipelined", b["node"], tuple(b.get("gpuGroups") or ()))
    for e in answer["evictions"]:
        k = name(e["pod"])
        if e.get("moveTo"):
            out[k] = ("Pipelined", e["moveTo"], tuple(e.get("moveToGpuGroups") or ()))
        else:
            out[k] = ("Releasing", e["node"], out[k][2])
    return out


def _groups_errors(jobs: list[dict[str, Any]], got: dict[str, tuple[str, str, tuple[str, ...]]],
                   expected: list[tuple[str, dict[str, Any]]]) -> list[str]:  # fmt: skip
    """The GPU-group check of ``test_utils.MatchExpectedAndRealTasks`` as it is meant: on each
    node, one expected group name stands for one actual group, over every active
    gpu-fraction task whose expectation names groups (Go's own check compares only tasks
    whose groups already equal the expected ones)."""
    fraction = {f"{j['name']}-{i}" for j in jobs for i, t in enumerate(j.get("tasks") or [])
                if float(t.get("requiredGPUs", j.get("requiredGPUsPerTask", 0)) or 0) % 1 or j.get("requiredGpuMemory")}  # fmt: skip
    errors: list[str] = []
    seen: dict[tuple[str, str], str] = {}
    back: dict[tuple[str, str], str] = {}
    for tname, exp in expected:
        st, node, groups = got[tname]
        want = exp.get("gpuGroups")
        if tname not in fraction or not want or exp.get("dontValidateGPUGroup") or st not in ACTIVE_USED:
            continue
        if len(groups) != len(want):
            errors.append(f"{tname}: GPU groups {list(groups)}, expected {want}")
            continue
        for w, a in zip(want, groups, strict=True):
            if seen.setdefault((node, str(w)), a) != a or back.setdefault((node, a), str(w)) != str(w):
                errors.append(f"{tname}: GPU groups {list(groups)} on {node}, expected {want} (as the other tasks map them)")
    return errors


def _accepted_gpus(j: dict[str, Any], t: dict[str, Any], node: dict[str, Any]) -> float:
    """A placed task's ``AcceptedResource.GPUs()`` (``NodeInfo.setAcceptedResources``): its whole
    GPUs, its fraction (to hundredths), or its GPU memory as a portion of one of the node's
    GPUs, rounded up to hundredths (``getGpuMemoryFractionalOnNode``; the node's
    ``nvidia.com/gpu.memory``, 100 MiB by default, floored to a multiple of 100)."""
    if j.get("requiredGpuMemory"):
        mem = int(node.get("gpuMemory") or 100)
        mem -= mem % 100
        return math.ceil(int(j["requiredGpuMemory"]) / mem * 100) / 100
    gpus = float(t.get("requiredGPUs", j.get("requiredGPUsPerTask", 0)) or 0)
    return gpus if not gpus % 1 else round(gpus * 100) / 100


def check(case: Case, jobs: list[dict[str, Any]], got: dict[str, tuple[str, str, tuple[str, ...]]]) -> list[str]:
    """The Go expectations that do not hold (an empty list: the case passes)."""
    errors = []
    data = case.data
    by_job = {j["name"]: j for j in jobs}
    for jname, exp in (data.get("expectedJobs") or {}).items():
        j = by_job.get(jname)
        if j is None:
            errors.append(f"job {jname} missing")
            continue
        for i, _ in enumerate(j.get("tasks") or []):
            st, node, _ = got[f"{jname}-{i}"]
            if st != exp["status"]:
                errors.append(f"{jname}-{i}: status {st}, expected {exp['status']}")
            if exp.get("node") and node != exp["node"]:
                errors.append(f"{jname}-{i}: node {node!r}, expected {exp['node']}")
        if exp.get("gpusAccepted") and exp["status"] in ACTIVE_USED:
            accepted = sum(_accepted_gpus(j, t, data["nodes"].get(got[f"{jname}-{i}"][1]) or {})
                           for i, t in enumerate(j.get("tasks") or []))  # fmt: skip
            if round(accepted, 6) != float(exp["gpusAccepted"]):
                errors.append(f"{jname}: accepted GPUs {accepted}, expected {exp['gpusAccepted']}")
    for tname, exp in (data.get("expectedTasks") or {}).items():
        if tname not in got:
            continue  # a key no task has: Go never checks it either
        st, node, _ = got[tname]
        if st != exp["status"]:
            errors.append(f"{tname}: status {st}, expected {exp['status']}")
        if exp.get("node") and node != exp["node"]:
            errors.append(f"{tname}: node {node!r}, expected {exp['node']}")
    for nname, exp in (data.get("expectedNodes") or {}).items():
        gpus = {f"{j['name']}-{i}": float(t.get("requiredGPUs", j.get("requiredGPUsPerTask", 0)) or 0)
                for j in jobs for i, t in enumerate(j.get("tasks") or [])}  # fmt: skip
        shared_jobs = {j["name"] for j in jobs if j.get("requiredGpuMemory")}  # gpu-memory tasks share GPUs too
        whole = {k: v for k, v in gpus.items() if not v % 1 and k.rsplit("-", 1)[0] not in shared_jobs}
        releasing = sum(whole[k] for k, (st, n, _) in got.items() if k in whole and n == nname and st == "Releasing")
        releasing -= sum(whole[k] for k, (st, n, _) in got.items() if k in whole and n == nname and st == "Pipelined")
        used = sum(whole[k] for k, (st, n, _) in got.items()
                   if k in whole and n == nname and st in ACTIVE_USED and st != "Pipelined")  # fmt: skip
        # a GPU shared by fractions counts whole (GpuSharingNodeInfo): used while a fraction on it is
        # allocated, releasing when all of them are, taken back by a fraction pipelined onto it
        on_group: dict[str, list[str]] = {}
        for k, (st, n, groups) in got.items():
            if k not in whole and n == nname and st in ACTIVE_USED:
                for g in groups:
                    on_group.setdefault(g, []).append(st)
        for states in on_group.values():
            placed = [st for st in states if st != "Pipelined"]
            all_released = bool(placed) and all(st == "Releasing" for st in placed)
            used += 1 if placed else 0
            releasing += 1 if all_released else 0
            releasing -= 1 if "Pipelined" in states and (not placed or all_released) else 0
        node = data["nodes"][nname] or {}
        idle = float(0 if node.get("migStrategy") == "mixed" else node.get("gpus", 0)) - used  # MIG: Idle.GPUs() only
        if "releasingGPUs" in exp and releasing != float(exp["releasingGPUs"]):
            errors.append(f"node {nname}: releasing GPUs {releasing}, expected {exp['releasingGPUs']}")
        if "idleGPUs" in exp and idle != float(exp["idleGPUs"]):
            errors.append(f"node {nname}: idle GPUs {idle}, expected {exp['idleGPUs']}")
    expected = [(f"{jname}-{i}", exp) for jname, exp in (data.get("expectedJobs") or {}).items() if jname in by_job
                for i, _ in enumerate(by_job[jname].get("tasks") or [])]  # fmt: skip
    expected += [(tname, exp) for tname, exp in (data.get("expectedTasks") or {}).items() if tname in got]
    if data.get("groupsUnchecked"):  # expectations naming groups KAI does not give (see FORMAT.md)
        return errors
    return errors + _groups_errors(jobs, got, expected)


def advance(jobs: list[dict[str, Any]], got: dict[str, tuple[str, str, tuple[str, ...]]]) -> list[dict[str, Any]]:
    """``runSchedulerOneRound``'s update of the test's state after a round."""
    out = copy.deepcopy(jobs)
    for j in out:
        for i, t in enumerate(j.get("tasks") or []):
            st, node, groups = got[f"{j['name']}-{i}"]
            if task_claims(t):  # DRA: the claims' status after the round (claim_statuses)
                _dra_mark(t, t.get("state", "Pending"), st, node)
            if groups:
                t["gpuGroups"] = list(groups)
            if st == "Releasing":
                if j.get("deleteJobInTest"):
                    t.update(state="Releasing", node=node)
                else:
                    t.update(state="Pending")
                    t.pop("node", None)
                    t.pop("gpuGroups", None)
            elif st == "Pipelined":
                t.update(state="Pending")
                t.pop("node", None)
                t.pop("gpuGroups", None)
            elif st == "Binding":
                t.update(state="Running", node=node)
            else:
                t.update(state=st)
                if node:
                    t["node"] = node
    return out


def go_rows(test: str, rows: list[tuple], skipped: list[tuple[str, str]]) -> list[Any]:
    """A transcribed Go unit table as pytest params: each row (its name first) with the id
    ``<Go test>/<row name>``, then each skipped row (name, why) skipped with the reason."""
    import pytest

    return [*(pytest.param(r, id=f"{test}/{r[0]}") for r in rows),
            *(pytest.param(None, id=f"{test}/{name}", marks=pytest.mark.skip(reason=why)) for name, why in skipped)]  # fmt: skip
