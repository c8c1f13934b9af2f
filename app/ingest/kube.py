"""Kubernetes objects (as ``kubectl get -o json`` prints them) into a :class:`Draft`.

One reader per (API group, kind). Objects of kinds the engine does not use are counted
and reported as a warning, never rejected: users post whole dumps.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import fields
from itertools import repeat
from typing import Any

import msgspec
import orjson

from app.errors import InputError, LimitError, join_pointer
from app.ingest import fastjson, podrequest
from app.ingest import reader as r
from app.ingest.body import parse_json, parse_yaml_text
from app.ingest.dra import pod_claims, read_device_class, read_resource_claim, read_resource_claim_template, read_resource_slice
from app.ingest.draft import (
    BindRequestDraft,
    Draft,
    GroupDraft,
    GroupRef,
    NodeDraft,
    PodDraft,
    TopologySource,
    WorkloadTemplate,
)
from app.ingest.gostrconv import parse_int
from app.ingest.kernels import compiled
from app.kai.jobs import KAI_SCHEDULER_NAME, KAI_SUBGROUP_LABEL
from app.ingest.metalimits import DEFAULT as DEFAULT_LIMITS
from app.ingest.metalimits import MetaLimits, check_object
from app.ingest.numatopology import read_numatopology
from app.ingest.podrequest import KaiRequest, NonZero, effective_pod_request, nonzero_extra
from app.ingest.quantity import INT64_MAX, quantity_map
from app.model.cluster import (
    KaiResource,
    NetworkTopology,
    NodeGroupAffinity,
    PodDisruptionBudget,
    PriorityClass,
    Queue,
    ResourceQuota,
    SpreadConstraint,
    SubGroupPolicy,
    UNPARSABLE_TASK_PRIORITY,
)
from app.model.nodeshard import NodeShard, read_node_names
from app.model.selectors import LabelSelector
from app.topology.tree import parse_hypernode

# Well-known keys -------------------------------------------------------------------------
#: the label the API server sets on every Namespace: its name
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
VOLCANO_TASK_SPEC = "volcano.sh/task-spec"
VOLCANO_PREEMPTABLE = "volcano.sh/preemptable"
#: Volcano's cooldown protection (the ``cdp`` plugin): a label, else an annotation, with a Go duration
VOLCANO_COOLDOWN = "volcano.sh/cooldown-time"
VOLCANO_NT_MODE = "volcano.sh/network-topology-mode"
VOLCANO_NT_TIER = "volcano.sh/network-topology-highest-tier"
#: A pod's queue as Volcano's PodGroup controller reads it for the PodGroup it makes for a
#: pod on its own (``buildPodGroupFromPod``)
VOLCANO_QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
#: Volcano's ``nodegroup`` plugin: a Node's group (label) and a Queue's per-group limits (annotation)
VOLCANO_NODEGROUP_NAME = "volcano.sh/nodegroup-name"
VOLCANO_NODEGROUP_LIMITS = "volcano.sh/nodegroup-resource-limits"
VOLCANO_HIERARCHY = "volcano.sh/hierarchy"
VOLCANO_HIERARCHY_WEIGHTS = "volcano.sh/hierarchy-weights"
#: node conditions KAI's ``CheckNodeConditionPredicate`` wants False (a node with one of them
#: present and not False adds nothing to KAI's capacity)
PRESSURE_CONDITIONS = frozenset({"MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"})
KAI_GROUP_ANNOTATION = "pod-group-name"
KAI_QUEUE_LABEL = "kai.scheduler/queue"
#: KAI's node-pool label (``constants.DefaultNodePoolLabelKey``, the scheduler's and the
#: pod-grouper's ``--nodepool-label-key``)
KAI_NODE_POOL_LABEL = "kai.scheduler/node-pool"
KAI_TASK_PRIORITY_LABEL = "kai.scheduler/task-priority"
KAI_GPU_FRACTION = "gpu-fraction"
KAI_GPU_FRACTION_DEVICES = "gpu-fraction-num-devices"
KAI_GPU_FRACTION_CONTAINER = "gpu-fraction-container-name"
#: the pods KAI's admission webhooks check under the ``kai`` profile: those naming
#: ``kai-scheduler`` and those naming no scheduler (which every profile takes as its own)
KAI_OWN = frozenset({"kai-scheduler", ""})
#: Volcano's node oversubscription (volcano-agent's colocation): millicores and bytes added
#: to the node's allocatable (``pkg/scheduler/api/well_known_labels.go``)
OVERSUBSCRIPTION_CPU = "volcano.sh/oversubscription-cpu"
OVERSUBSCRIPTION_MEMORY = "volcano.sh/oversubscription-memory"
KAI_MPS = "mps"
KAI_GPU_MEMORY = "gpu-memory"
#: KAI's MIG resources, and a pod annotation so named: a *legacy* MIG task (``app.kai.mig``)
KAI_MIG_PREFIX = "nvidia.com/mig-"
#: the most devices one gpu-fraction pod may ask for (SECURITY.md: Limits)
MAX_GPU_FRACTION_DEVICES = 1024
#: the most GPU memory (MiB) one gpu-memory pod may ask for per device (SECURITY.md: Limits)
MAX_GPU_MEMORY_MIB = 2**40
KAI_PRIORITY_LABEL = "priorityClassName"  # KAI's podgrouper reads it before spec.priorityClassName
KAI_PREEMPTIBILITY_LABEL = "kai.scheduler/preemptibility"
SIGS_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
SIGS_LEGACY_GROUP_LABEL = "pod-group.scheduling.sigs.k8s.io/name"
#: The pod label of ``scheduling.sigs.k8s.io/v1alpha1`` PodGroups (coscheduling's first API
#: group, the form Koordinator's gang docs use): its value names the PodGroup.
SIGS_V1ALPHA1_LABEL = "pod-group.scheduling.sigs.k8s.io"
SIGS_LEGACY_MIN = "pod-group.scheduling.sigs.k8s.io/min-available"
SIGS_LEGACY_MATCH_POLICY = "pod-group.scheduling.sigs.k8s.io/match-policy"
KOORD = "gang.scheduling.koordinator.sh/"
KOORD_NAME = KOORD + "name"
GPU = "nvidia.com/gpu"


def ident_of(kind: str, meta: dict, *, namespaced: bool) -> dict[str, str]:
    name = meta.get("name")
    out = {"kind": kind, "name": name if isinstance(name, str) else ""}
    if namespaced:
        ns = meta.get("namespace")
        out["namespace"] = ns if isinstance(ns, str) and ns else "default"
    return out


def metadata(o: dict, ptr: str, kind: str, *, namespaced: bool) -> tuple[dict, dict[str, str], str, str]:
    """Return (metadata, ident, namespace, name); the name is required and non-empty."""
    meta = o.get("metadata")
    if not isinstance(meta, dict):
        raise InputError("'metadata' must be an object", join_pointer(ptr, "metadata"), {"kind": kind})
    ident = ident_of(kind, meta, namespaced=namespaced)
    mp = join_pointer(ptr, "metadata")
    name = r.string(meta, "name", mp, ident, required=True)
    if not name:
        raise InputError("'name' must not be empty", join_pointer(mp, "name"), ident)
    ns = ident.get("namespace", "")
    if namespaced:
        r.string(meta, "namespace", mp, ident)
    return meta, ident, ns, name


def _int_or_percent(v: Any, ptr: str, ident: r.Ident) -> int | str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        raise InputError("must be an integer or a percentage string", ptr, ident)
    if isinstance(v, int):
        if v < 0:
            raise InputError("must not be negative", ptr, ident)
        return v
    if isinstance(v, str):
        s = v.strip()
        if s.endswith("%") and s[:-1].isdigit():
            return s
        if s.isdigit():
            return int(s)
    raise InputError(f"must be an integer or a percentage such as '50%', not {v!r}", ptr, ident)


def network_topology(raw: Any, ptr: str, ident: r.Ident) -> NetworkTopology | None:
    """Volcano ``networkTopology``: mode hard|soft (CRD default hard), tier XOR tier name."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InputError("'networkTopology' must be an object", ptr, ident)
    mode = r.string(raw, "mode", ptr, ident, default="hard")
    if mode not in ("hard", "soft"):
        raise InputError(f"mode must be 'hard' or 'soft', not {mode!r}", join_pointer(ptr, "mode"), ident)
    tier = r.integer(raw, "highestTierAllowed", ptr, ident, minimum=0)
    tier_name = r.string(raw, "highestTierName", ptr, ident) or None
    if tier is not None and tier_name is not None:
        raise InputError(
            "set highestTierAllowed or highestTierName, not both", join_pointer(ptr, "highestTierName"), ident
        )
    return NetworkTopology(mode=mode, highest_tier_allowed=tier, highest_tier_name=tier_name)


def selector(raw: Any, ptr: str, ident: r.Ident) -> LabelSelector | None:
    if raw is None:
        return None
    return LabelSelector.parse(raw, ptr, ident)


def priority_class_name(spec: dict, ptr: str, ident: r.Ident) -> str:
    return r.string(spec, "priorityClassName", ptr, ident)


# Core ------------------------------------------------------------------------------------
def read_node(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, _, name = metadata(o, ptr, "Node", namespaced=False)
    mp = join_pointer(ptr, "metadata")
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    status = r.obj(o, "status", ptr, ident)
    st = join_pointer(ptr, "status")
    if "allocatable" in status and status["allocatable"] is not None:
        alloc = quantity_map(status["allocatable"], join_pointer(st, "allocatable"), ident)
    else:
        alloc = quantity_map(status.get("capacity") or {}, join_pointer(st, "capacity"), ident)
    taints = []
    for i, t in enumerate(r.lst(spec, "taints", sp, ident)):
        tp = join_pointer(sp, "taints", i)
        if not isinstance(t, dict):
            raise InputError("a taint must be an object", tp, ident)
        r.string(t, "key", tp, ident, required=True)
        r.string(t, "value", tp, ident)
        eff = r.string(t, "effect", tp, ident, required=True)
        if eff not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            raise InputError(f"unknown taint effect {eff!r}", join_pointer(tp, "effect"), ident)
        taints.append(t)
    ready = healthy = True
    stated = False
    for c in r.lst(status, "conditions", st, ident):
        if isinstance(c, dict):
            kind = c.get("type")
            if kind == "Ready":
                ready, stated = c.get("status") == "True", True
            elif isinstance(kind, str) and kind in PRESSURE_CONDITIONS and c.get("status") != "False":
                healthy = False
    ann = meta.get("annotations")
    if type(ann) is dict and (OVERSUBSCRIPTION_CPU in ann or OVERSUBSCRIPTION_MEMORY in ann):
        notes = r.str_map(meta, "annotations", mp, ident)
        d.oversubscription[name] = (ptr, {k: notes[k] for k in (OVERSUBSCRIPTION_CPU, OVERSUBSCRIPTION_MEMORY) if k in notes})
    d.nodes.append(
        NodeDraft(
            name=name,
            uid=r.string(meta, "uid", mp, ident),
            labels=r.str_map(meta, "labels", mp, ident),
            taints=tuple(taints),
            unschedulable=bool(r.boolean(spec, "unschedulable", sp, ident, default=False)),
            ready=ready,
            allocatable=alloc,
            pointer=ptr,
            ident=ident,
            healthy=healthy,
            ready_stated=stated,
        )
    )


def _group_ref(ns: str, labels: dict, ann: dict, spec: dict, ptr: str, ident: r.Ident) -> GroupRef | None:
    """Find the pod's gang, trying each API in a fixed, documented order."""
    sp = join_pointer(ptr, "spec")
    sg = spec.get("schedulingGroup")
    if sg is not None:
        sgp = join_pointer(sp, "schedulingGroup")
        if not isinstance(sg, dict):
            raise InputError("'schedulingGroup' must be an object", sgp, ident)
        return GroupRef("workload", r.string(sg, "podGroupName", sgp, ident, required=True), sgp)
    wr = spec.get("workloadRef")
    if wr is not None:
        wp = join_pointer(sp, "workloadRef")
        if not isinstance(wr, dict):
            raise InputError("'workloadRef' must be an object", wp, ident)
        return GroupRef(
            "workload-v1alpha1",
            r.string(wr, "name", wp, ident, required=True),
            wp,
            {
                "podGroup": r.string(wr, "podGroup", wp, ident, required=True),
                "replicaKey": r.string(wr, "podGroupReplicaKey", wp, ident),
            },
        )
    mp = join_pointer(ptr, "metadata")
    if VOLCANO_GROUP_ANNOTATION in ann:
        return GroupRef("volcano", ann[VOLCANO_GROUP_ANNOTATION], join_pointer(mp, "annotations", VOLCANO_GROUP_ANNOTATION))
    if KAI_GROUP_ANNOTATION in ann:
        return GroupRef("kai", ann[KAI_GROUP_ANNOTATION], join_pointer(mp, "annotations", KAI_GROUP_ANNOTATION))
    if SIGS_GROUP_LABEL in labels:
        return GroupRef("scheduler-plugins", labels[SIGS_GROUP_LABEL], join_pointer(mp, "labels", SIGS_GROUP_LABEL))
    for key, where in ((SIGS_LEGACY_GROUP_LABEL, "labels"), (KOORD_NAME, "annotations")):
        src = labels if where == "labels" else ann
        if key in src:
            extra = {k[len(KOORD):]: v for k, v in ann.items() if k.startswith(KOORD)}
            if SIGS_LEGACY_MIN in ann and "min-available" not in extra:
                extra["min-available"] = ann[SIGS_LEGACY_MIN]
            if SIGS_LEGACY_MATCH_POLICY in ann and "match-policy" not in extra:
                extra["match-policy"] = ann[SIGS_LEGACY_MATCH_POLICY]
            return GroupRef("koordinator", src[key], join_pointer(mp, where, key), extra)
    if SIGS_V1ALPHA1_LABEL in labels:
        return GroupRef("scheduler-plugins", labels[SIGS_V1ALPHA1_LABEL], join_pointer(mp, "labels", SIGS_V1ALPHA1_LABEL))
    return None


_PHASES = frozenset({"Pending", "Running", "Succeeded", "Failed", "Unknown"})


def _opt_str(d: dict, key: str) -> str | None:
    """``d[key]`` as a string ("" when absent or null), or None when it is not a string."""
    v = d.get(key)
    if v is None:
        return ""
    return v if type(v) is str else None


def _pod_fast(o: dict, ptr: str, *, claims: bool = False) -> PodDraft | None:
    """The common pod shape, checked with plain type tests: what :func:`read_pod` would
    build, or None (anything unusual or invalid), and then ``read_pod`` reads it field by
    field and reports the exact error. Gangs named by schedulingGroup, workloadRef or the
    Koordinator / legacy coscheduling keys, KAI GPU sharing (fractions, GPU memory) and
    task priorities always take the full reader; pods with DRA claims unless ``claims``
    (``read_pod``, which reads the claims itself; the C reader, this one's twin, declines them)."""
    meta, spec, status = o.get("metadata"), o.get("spec"), o.get("status")
    if type(meta) is not dict or (spec is not None and type(spec) is not dict):
        return None
    if status is not None and type(status) is not dict:
        return None
    spec = spec or {}
    status = status or {}
    name, ns = meta.get("name"), meta.get("namespace")
    if type(name) is not str or not name or (ns is not None and type(ns) is not str):
        return None
    ns = ns or "default"
    labels, ann = r.plain_str_map(meta.get("labels")), r.plain_str_map(meta.get("annotations"))
    if labels is None or ann is None or KAI_TASK_PRIORITY_LABEL in labels:
        return None
    if KAI_GPU_FRACTION in ann or KAI_GPU_MEMORY in ann or (ann and any(k.startswith(KAI_MIG_PREFIX) for k in ann)):
        return None
    phase = status.get("phase")
    phase = "Pending" if phase is None else phase
    if type(phase) is not str or phase not in _PHASES:
        return None
    node_selector = r.plain_str_map(spec.get("nodeSelector"))
    affinity, tolerations, gates = spec.get("affinity"), spec.get("tolerations"), spec.get("schedulingGates")
    if node_selector is None or (affinity is not None and type(affinity) is not dict):
        return None
    if tolerations is None:
        tolerations = ()
    elif type(tolerations) is not list or not all(type(t) is dict for t in tolerations):
        return None
    if gates is not None and type(gates) is not list:
        return None
    prio = spec.get("priority")
    if (prio is not None and (type(prio) is not int or not r.INT64_MIN <= prio <= r.INT64_MAX)) or spec.get("schedulingGroup") is not None or spec.get("workloadRef") is not None:
        return None
    uid, node, pclass = _opt_str(meta, "uid"), _opt_str(spec, "nodeName"), _opt_str(spec, "priorityClassName")
    nominated, policy = _opt_str(status, "nominatedNodeName"), _opt_str(spec, "preemptionPolicy")
    if uid is None or node is None or pclass is None or nominated is None or policy is None:
        return None
    mp = ptr + "/metadata"
    if VOLCANO_GROUP_ANNOTATION in ann:
        group: GroupRef | None = GroupRef("volcano", ann[VOLCANO_GROUP_ANNOTATION], join_pointer(mp, "annotations", VOLCANO_GROUP_ANNOTATION))
    elif KAI_GROUP_ANNOTATION in ann:
        group = GroupRef("kai", ann[KAI_GROUP_ANNOTATION], join_pointer(mp, "annotations", KAI_GROUP_ANNOTATION))
    elif SIGS_GROUP_LABEL in labels:
        group = GroupRef("scheduler-plugins", labels[SIGS_GROUP_LABEL], join_pointer(mp, "labels", SIGS_GROUP_LABEL))
    elif SIGS_LEGACY_GROUP_LABEL in labels or KOORD_NAME in ann or SIGS_V1ALPHA1_LABEL in labels:
        return None
    else:
        group = None
    sched = spec.get("schedulerName")
    if (sched is not None and type(sched) is not str) or spec.get("topologySpreadConstraints") or (spec.get("resourceClaims") and not claims):
        return None  # (spread constraints: the full reader; DRA claims only when read_pod reads them too: ``claims``)
    containers = spec.get("containers")
    if containers is not None and type(containers) is not list:
        return None
    inits = spec.get("initContainers")
    if inits is not None and type(inits) is not list:
        return None
    for c in itertools.chain(containers or (), inits or ()):  # (a sidecar's host ports count too: any init container's, the full reader)
        ports = c.get("ports") if type(c) is dict else None
        if type(c) is not dict or (ports and (type(ports) is not list or any(type(p) is not dict or p.get("hostPort") for p in ports))):
            return None  # host ports (or an odd container): the full reader
    ident = {"kind": "Pod", "name": name, "namespace": ns}
    try:
        created = r.timestamp(meta.get("creationTimestamp"), mp + "/creationTimestamp", ident)
        req = effective_pod_request(spec, ptr + "/spec", ident)
    except InputError:
        return None
    return PodDraft(
        ns, name, uid, node, phase, meta.get("deletionTimestamp") is not None, prio, pclass, req, labels, ann, group,
        pod_queue(labels, ann, group), ann.get(VOLCANO_TASK_SPEC) or labels.get(VOLCANO_TASK_SPEC, ""),
        labels.get(KAI_SUBGROUP_LABEL, ""), r.flag(ann.get(VOLCANO_PREEMPTABLE, labels.get(VOLCANO_PREEMPTABLE))),
        created, nominated, bool(gates), policy, node_selector, affinity or None, tuple(tolerations), None, ptr, ident,
        False, *kai_pod_fields(group, labels, sched), scheduler=sched or "",
    )  # fmt: skip


def pod_queue(labels: dict[str, str], ann: dict[str, str], group: GroupRef | None) -> str:
    """A pod's queue: its ``kai.scheduler/queue`` label (KAI's podgrouper); on its own and
    without that label, its ``scheduling.volcano.sh/queue-name`` annotation (Volcano's
    PodGroup controller gives it to the PodGroup it makes for the pod); else "" (the
    default queue). A pod of a gang is in its gang's queue (a KAI PodGroup with none takes
    the label's)."""
    queue = labels.get(KAI_QUEUE_LABEL, "")
    if group is None and queue == "":
        return ann.get(VOLCANO_QUEUE_ANNOTATION, "")
    return queue


def _kube_consts() -> dict[str, str]:
    """The keys ``kube_pod`` reads, by the names they have here."""
    names = ("VOLCANO_GROUP_ANNOTATION", "KAI_GROUP_ANNOTATION", "SIGS_GROUP_LABEL", "SIGS_LEGACY_GROUP_LABEL", "KOORD_NAME",
             "SIGS_V1ALPHA1_LABEL", "KAI_GPU_FRACTION", "KAI_TASK_PRIORITY_LABEL", "KAI_QUEUE_LABEL", "VOLCANO_TASK_SPEC",
             "KAI_SUBGROUP_LABEL", "VOLCANO_PREEMPTABLE", "KAI_SCHEDULER_NAME", "KAI_PRIORITY_LABEL",
             "KAI_PREEMPTIBILITY_LABEL", "KAI_GPU_MEMORY", "KAI_MIG_PREFIX", "VOLCANO_COOLDOWN", "VOLCANO_QUEUE_ANNOTATION")  # fmt: skip
    consts = {n: globals()[n] for n in names}
    consts["VOLCANO_GROUP_AT"] = join_pointer("/metadata", "annotations", VOLCANO_GROUP_ANNOTATION)
    consts["KAI_GROUP_AT"] = join_pointer("/metadata", "annotations", KAI_GROUP_ANNOTATION)
    consts["SIGS_GROUP_AT"] = join_pointer("/metadata", "labels", SIGS_GROUP_LABEL)
    return consts


def _kube_pod_kernel() -> Callable[[dict, str], PodDraft | None] | None:
    """``_pod_fast`` in C (``kube_pod`` in ``app/ingest/kernels.c``), handed this module's
    keys, classes, caches and callbacks once; None when the C kernels do not run or the
    classes are not the slotted ones it writes."""
    setup, fn = compiled("kube_pod_setup"), compiled("kube_pod")
    if setup is None or fn is None:
        return None
    consts = _kube_consts()
    ready = setup(
        consts, PodDraft, tuple(f.name for f in fields(PodDraft)), GroupRef, tuple(f.name for f in fields(GroupRef)),
        InputError, r._TIME_CACHE, r.timestamp, podrequest._BY_CONTAINERS, effective_pod_request, r.flag, _PHASES,
    )  # fmt: skip
    return fn if ready else None


#: ``_pod_fast`` in C where the kernels run (None: the Python one alone), and
#: ``read_objects``' loop over a run of pods in the common shape (``kube_pods``: each on a
#: node, or on none and not controlled by a :data:`DEFAULT_SPREAD_OWNERS` controller,
#: which ``read_pod`` counts; each passes ``check_object``'s quick test, has no pod
#: affinity for ``read_pod`` to check, and ``kube_pod`` reads it; it stops at the first
#: other object).
_pod_fast_c = _kube_pod_kernel()
_pods_run = compiled("kube_pods") if _pod_fast_c is not None else None


def kai_pod_fields(group: GroupRef | None, labels: dict[str, str], scheduler_name: str | None) -> tuple[bool, str, str]:
    """``kai_pod``, ``kai_class``, ``kai_preemptibility`` of a pod (see :class:`PodDraft`)."""
    if group is not None or (scheduler_name != KAI_SCHEDULER_NAME and KAI_QUEUE_LABEL not in labels):
        return False, "", ""
    return True, labels.get(KAI_PRIORITY_LABEL, ""), labels.get(KAI_PREEMPTIBILITY_LABEL, "")


#: Controllers whose pods kube-scheduler spreads by default when they carry no constraints
#: of their own (PodTopologySpread's SystemDefaulting; it reads the controller's selector).
DEFAULT_SPREAD_OWNERS = frozenset({"ReplicaSet", "StatefulSet", "ReplicationController"})


def read_pod(o: dict, ptr: str, d: Draft) -> None:
    pod = _pod_fast_c(o, ptr) if _pod_fast_c is not None else None
    if pod is None:
        pod = _pod_fast(o, ptr, claims=True)
        if pod is None:  # the fast readers leave every KAI GPU-sharing and legacy MIG pod to this one
            pod = _pod_full(o, ptr)
            if KAI_GPU_FRACTION in pod.annotations or KAI_GPU_MEMORY in pod.annotations:
                d.gpu_shared.append(pod)
                _kai_sharing_refusals(o, ptr, pod, d)
            if legacy_mig(pod.annotations):
                d.legacy_mig.append(pod)
    d.pods.append(pod)
    if VOLCANO_COOLDOWN in pod.labels or VOLCANO_COOLDOWN in pod.annotations:  # (the C readers leave these pods here)
        d.cooldowns[f"{pod.namespace}/{pod.name}"] = _cooldown(o, ptr, pod)
    spec = o.get("spec")
    if type(spec) is dict and spec.get("resourceClaims"):  # (the C reader leaves pods with DRA claims to these)
        d.dra_pods.append(pod)
        d.dra.pod_claims[f"{pod.namespace}/{pod.name}"] = pod_claims(spec, r.obj(o, "status", ptr, pod.ident), ptr, pod.ident)
    if type(spec) is dict:
        aff = spec.get("affinity")
        for key in ("podAffinity", "podAntiAffinity") if type(aff) is dict else ():
            if aff.get(key) is not None and type(aff[key]) is not dict:
                raise InputError(f"{key} must be an object", join_pointer(ptr, "spec", "affinity", key), pod.ident)
        if not pod.node_name and not spec.get("topologySpreadConstraints") and _controlled(o.get("metadata")):
            if not d.default_spread[0]:
                d.default_spread[1] = f"{pod.namespace}/{pod.name}"
            d.default_spread[0] += 1


def _cooldown(o: dict, ptr: str, pod: PodDraft) -> tuple[str, float | None]:
    """A pod's ``volcano.sh/cooldown-time`` (its label, else its annotation) and, for a
    Running pod, the ``lastTransitionTime`` of its first ``PodScheduled`` condition with status
    ``True``, else None (none, or a condition without a time: Go's zero time protects nothing;
    Volcano's ``cdp`` plugin)."""
    value = pod.labels.get(VOLCANO_COOLDOWN, pod.annotations.get(VOLCANO_COOLDOWN, ""))
    if pod.phase != "Running":
        return value, None
    status = r.obj(o, "status", ptr, pod.ident)
    st = join_pointer(ptr, "status")
    for i, c in enumerate(r.lst(status, "conditions", st, pod.ident)):
        cp = join_pointer(st, "conditions", i)
        if type(c) is not dict:
            raise InputError("a pod condition must be an object", cp, pod.ident)
        if c.get("type") == "PodScheduled" and c.get("status") == "True":
            if c.get("lastTransitionTime") is None:
                return value, None  # Go's zero time: never inside a cooldown
            return value, r.timestamp(c.get("lastTransitionTime"), join_pointer(cp, "lastTransitionTime"), pod.ident)
    return value, None


def _controlled(meta: Any) -> bool:
    """The pod's controller (its owner with ``controller: true``) is one of
    :data:`DEFAULT_SPREAD_OWNERS`."""
    owners = meta.get("ownerReferences") if type(meta) is dict else None
    return type(owners) is list and any(type(o) is dict and o.get("controller") is True and type(o.get("kind")) is str
                                        and o["kind"] in DEFAULT_SPREAD_OWNERS for o in owners)  # fmt: skip


def _pod_full(o: dict, ptr: str) -> PodDraft:
    """Every field of a pod, validated in order, with exact error locations."""
    meta, ident, ns, name = metadata(o, ptr, "Pod", namespaced=True)
    mp = join_pointer(ptr, "metadata")
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    status = r.obj(o, "status", ptr, ident)
    st = join_pointer(ptr, "status")
    labels = r.str_map(meta, "labels", mp, ident)
    ann = r.str_map(meta, "annotations", mp, ident)
    phase = r.string(status, "phase", st, ident, default="Pending")
    if phase not in _PHASES:
        raise InputError(f"unknown pod phase {phase!r}", join_pointer(st, "phase"), ident)
    req = effective_pod_request(spec, sp, ident)
    if KAI_GPU_FRACTION in ann:
        fraction = _kai_fraction_request(ann, mp, ident)
        kai = req.kai if type(req) is KaiRequest else None
        extra = nonzero_extra(req)
        req = {**req, GPU: fraction}  # a copy: request maps are shared
        if kai is not None:  # (KAI's own request, with the fraction too)
            req = KaiRequest(req)
            req.kai = {**kai, GPU: fraction}
            req.extra = extra
        elif extra is not None:
            req = NonZero(req)
            req.extra = extra
    node_selector = r.str_map(spec, "nodeSelector", sp, ident)
    affinity = r.obj(spec, "affinity", sp, ident) or None
    tolerations = r.objects(spec, "tolerations", sp, ident, "a toleration")
    tp = labels.get(KAI_TASK_PRIORITY_LABEL)
    task_priority = None if tp is None else kai_task_priority(tp)
    pre = r.flag(ann.get(VOLCANO_PREEMPTABLE, labels.get(VOLCANO_PREEMPTABLE)))
    group = _group_ref(ns, labels, ann, spec, ptr, ident)
    d = PodDraft(  # positional: tens of thousands of pods
        ns, name, r.string(meta, "uid", mp, ident), r.string(spec, "nodeName", sp, ident), phase,
        meta.get("deletionTimestamp") is not None, r.integer(spec, "priority", sp, ident),
        priority_class_name(spec, sp, ident), req, labels, ann, group,
        pod_queue(labels, ann, group), ann.get(VOLCANO_TASK_SPEC) or labels.get(VOLCANO_TASK_SPEC, ""),
        labels.get(KAI_SUBGROUP_LABEL, ""), pre,
        r.timestamp(meta.get("creationTimestamp"), join_pointer(mp, "creationTimestamp"), ident),
        r.string(status, "nominatedNodeName", st, ident), bool(r.lst(spec, "schedulingGates", sp, ident)),
        r.string(spec, "preemptionPolicy", sp, ident), node_selector, affinity, tuple(tolerations), task_priority,
        ptr, ident,
    )  # fmt: skip
    d.scheduler = r.string(spec, "schedulerName", sp, ident)
    d.kai_pod, d.kai_class, d.kai_preemptibility = kai_pod_fields(d.group, labels, d.scheduler or None)
    d.host_ports = _host_ports(spec, sp, ident)
    d.spread, d.soft_spread = _spread(spec, sp, ident)
    return d


def kai_fraction(ann: dict[str, str], mp: str, ident: r.Ident) -> tuple[float, int]:
    """A KAI ``gpu-fraction`` pod's portion of a GPU and its number of devices
    (``gpu-fraction-num-devices``, default 1; an empty count is none), as PodInfo reads
    them; a 4xx at the annotation when either is not valid."""
    try:
        frac = float(ann[KAI_GPU_FRACTION])
        if not 0 < frac <= 1:
            raise ValueError
    except ValueError:
        where = join_pointer(mp, "annotations", KAI_GPU_FRACTION)
        raise InputError("gpu-fraction must be a number in (0, 1]", where, ident) from None
    return frac, _fraction_devices(ann, mp, ident)


def _kai_sharing_refusals(o: dict, ptr: str, pod: PodDraft, d: Draft) -> None:
    """What KAI's admission webhooks refuse of a GPU-sharing pod (``gpu-fraction`` or
    ``gpu-memory``; the latter's own checks are :func:`kai_gpu_memory`'s) of the kai profile
    (:data:`KAI_OWN`; the webhooks skip other schedulers' pods): the mutating ``Mutate``
    first (``GetFractionContainerRef``: a ``gpu-fraction-container-name`` naming no container or
    init container), then ``ValidateGpuRequests``: a fraction that is not below 1.0, or beside
    a whole-GPU limit (``nvidia.com/gpu`` in the limits of any container or init container,
    ``getFirstGPULimit``)."""
    if pod.scheduler not in KAI_OWN:
        return
    key = f"{pod.namespace}/{pod.name}"
    spec = o.get("spec")
    containers = [c for f in ("containers", "initContainers") for c in (spec.get(f) or [] if type(spec) is dict else [])]
    name = pod.annotations.get(KAI_GPU_FRACTION_CONTAINER)
    if name is not None and not any(type(c) is dict and c.get("name") == name for c in containers):
        d.kai_refused.append((key, InputError(f"failed to get fraction container ref: container with name {name} not "
                                              "found for fraction request (KAI's admission refuses the pod)", join_pointer(
                                                  ptr, "metadata", "annotations", KAI_GPU_FRACTION_CONTAINER),
                                              pod.ident)))  # fmt: skip
    if KAI_GPU_FRACTION in pod.annotations:
        where = join_pointer(ptr, "metadata", "annotations", KAI_GPU_FRACTION)
        try:
            whole = float(pod.annotations[KAI_GPU_FRACTION]) >= 1
        except ValueError:
            whole = False  # (kai_fraction names it: a 4xx in every profile)
        if whole:
            d.kai_refused.append((key, InputError("gpu-fraction annotation value must be a positive number smaller than "
                                                  "1.0 (KAI's admission refuses the pod)", where, pod.ident)))  # fmt: skip
        if any(type(c) is dict and type(c.get("resources")) is dict and type(c["resources"].get("limits")) is dict
               and GPU in c["resources"]["limits"] for c in containers):  # fmt: skip
            d.kai_refused.append((key, InputError("cannot have both GPU fraction request and whole GPU resource "
                                                  "request/limit (KAI's admission refuses the pod)", where, pod.ident)))  # fmt: skip


def kai_unshared_refusals(d: Draft) -> None:
    """What KAI's admission webhook (``ValidateGpuRequests``) refuses of a pod that shares no
    GPU (neither ``gpu-fraction`` nor ``gpu-memory``), which the C pod readers take: ``mps:
    "true"`` ("MPS is only supported with GPU fraction request") and a
    ``gpu-fraction-num-devices`` ("cannot request multiple fractional devices without
    specifying fraction portion or gpu-memory"), for a pod of the kai profile (:data:`KAI_OWN`;
    the webhooks skip other schedulers' pods). Under the ``kai`` profile (one pass over the pods;
    most have no annotations)."""
    for p in d.pods:
        ann = p.annotations
        if not ann or KAI_GPU_FRACTION in ann or KAI_GPU_MEMORY in ann or p.scheduler not in KAI_OWN:
            continue  # (the webhooks skip other schedulers' pods)
        for k, why in ((KAI_MPS, "MPS is only supported with GPU fraction request"),
                       (KAI_GPU_FRACTION_DEVICES, "cannot request multiple fractional devices without specifying "
                                                  "fraction portion or gpu-memory")):  # fmt: skip
            if k in ann and (k != KAI_MPS or ann[k] == "true"):
                d.kai_refused.append((f"{p.namespace}/{p.name}", InputError(
                    f"{why} (KAI's admission refuses the pod)", join_pointer(p.pointer, "metadata", "annotations", k),
                    p.ident)))  # fmt: skip
                break


def kai_gpu_memory(ann: dict[str, str], gpus: float, mp: str, ident: r.Ident) -> tuple[int, int]:
    """A KAI ``gpu-memory`` pod's GPU memory per device (MiB) and its number of devices
    (``gpu-fraction-num-devices``, as for a fraction), as PodInfo reads them; a 4xx at the
    annotation where KAI's admission webhook (``ValidateGpuRequests``) refuses the pod: a
    value that is not a positive integer, a ``gpu-fraction`` beside it, or whole GPUs
    (``gpus``: the pod's ``nvidia.com/gpu`` request)."""
    where = join_pointer(mp, "annotations", KAI_GPU_MEMORY)
    raw = ann[KAI_GPU_MEMORY]
    if not (raw.isascii() and raw.isdigit() and len(raw.lstrip("0")) <= 20 and int(raw) > 0):  # Go's ParseUint, not 0
        raise InputError("gpu-memory must be a positive integer (MiB)", where, ident)
    if KAI_GPU_FRACTION in ann or gpus:
        raise InputError("gpu-memory cannot be asked for with gpu-fraction or whole GPUs (KAI's admission refuses "
                         "the pod)", where, ident)  # fmt: skip
    if int(raw) > MAX_GPU_MEMORY_MIB:
        raise InputError(f"gpu-memory is more than {MAX_GPU_MEMORY_MIB} MiB (no GPU has that much; Gangplank's limit)",
                         where, ident)  # fmt: skip
    return int(raw), _fraction_devices(ann, mp, ident)


def _fraction_devices(ann: dict[str, str], mp: str, ident: r.Ident) -> int:
    """``gpu-fraction-num-devices`` (1 when absent or empty: KAI reads an empty count as none)."""
    devices = ann.get(KAI_GPU_FRACTION_DEVICES, "")
    if devices == "":
        return 1
    where = join_pointer(mp, "annotations", KAI_GPU_FRACTION_DEVICES)
    if not (devices.isascii() and devices.isdigit() and len(devices) <= 19 and 0 < int(devices) <= INT64_MAX):  # Go's ParseInt
        raise InputError(f"{KAI_GPU_FRACTION_DEVICES} must be a positive integer", where, ident)
    if int(devices) > MAX_GPU_FRACTION_DEVICES:  # each device is a GPU group of the answer
        raise InputError(f"{KAI_GPU_FRACTION_DEVICES} is more than {MAX_GPU_FRACTION_DEVICES} (no node has that many "
                         "GPUs; Gangplank's limit)", where, ident)  # fmt: skip
    return int(devices)


def _kai_fraction_request(ann: dict[str, str], mp: str, ident: r.Ident) -> int:
    """The milli-GPUs of a KAI ``gpu-fraction`` pod, as KAI's PodInfo counts them: the
    fraction replaces any whole-GPU request, is rounded to hundredths of a GPU (half away from
    zero, Go's ``math.Round``) and counts once per device (``getExtendedResourceGpus``,
    ``NewGpuResourceRequirementWithMultiFraction``)."""
    frac, count = kai_fraction(ann, mp, ident)
    return math.floor(frac * 100 + 0.5) * count * 10  # at most 1,024,000 (MAX_GPU_FRACTION_DEVICES)


def _spread(spec: dict, sp: str, ident: r.Ident) -> tuple[tuple[SpreadConstraint, ...], tuple[SpreadConstraint, ...]]:
    """The pod's ``topologySpreadConstraints``, validated as the API server does: those
    kube-scheduler filters with (DoNotSchedule) and those it only scores (ScheduleAnyway)."""
    out: tuple[list[SpreadConstraint], list[SpreadConstraint]] = ([], [])
    for i, c in enumerate(r.objects(spec, "topologySpreadConstraints", sp, ident, "a topology spread constraint")):
        cp = join_pointer(sp, "topologySpreadConstraints", i)
        skew = r.integer(c, "maxSkew", cp, ident, required=True, minimum=1)
        key = r.string(c, "topologyKey", cp, ident, required=True)
        when = r.string(c, "whenUnsatisfiable", cp, ident, required=True)
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            raise InputError("whenUnsatisfiable must be DoNotSchedule or ScheduleAnyway", join_pointer(cp, "whenUnsatisfiable"), ident)
        policies = []
        for field, default in (("nodeAffinityPolicy", "Honor"), ("nodeTaintsPolicy", "Ignore")):
            v = r.string(c, field, cp, ident) or default
            if v not in ("Honor", "Ignore"):
                raise InputError(f"{field} must be Honor or Ignore", join_pointer(cp, field), ident)
            policies.append(v == "Honor")
        sel = c.get("labelSelector")
        selector = None if sel is None else LabelSelector.parse(sel, join_pointer(cp, "labelSelector"), ident)
        keys = r.lst(c, "matchLabelKeys", cp, ident)
        if when == "ScheduleAnyway" and c.get("minDomains") is not None:
            raise InputError("minDomains can only be set when whenUnsatisfiable is DoNotSchedule", join_pointer(cp, "minDomains"), ident)
        out[when == "ScheduleAnyway"].append(SpreadConstraint(
            skew, key, selector, r.integer(c, "minDomains", cp, ident, minimum=1) or 1, policies[0], policies[1],
            tuple(k for k in keys if isinstance(k, str)),
        ))  # fmt: skip
    return tuple(out[0]), tuple(out[1])


def _host_ports(spec: dict, sp: str, ident: r.Ident) -> tuple[tuple[str, str, int], ...]:
    """The pod's host ports, as kube-scheduler's NodePorts reads them (``GetHostPorts``: the
    sidecars' (init containers with ``restartPolicy: Always``) first, then the containers';
    an empty hostIP is 0.0.0.0, an empty protocol TCP)."""
    out = []
    inits = spec.get("initContainers")
    sidecars = [("initContainers", i, c) for i, c in enumerate(inits if isinstance(inits, list) else ())
                if isinstance(c, dict) and c.get("restartPolicy") == "Always"]  # fmt: skip
    for kind, i, c in sidecars + [("containers", i, c) for i, c in enumerate(spec.get("containers") or ())]:
        if not isinstance(c, dict):
            continue
        cp = join_pointer(sp, kind, i)
        for j, port in enumerate(r.objects(c, "ports", cp, ident, "a container port")):
            pp = join_pointer(cp, "ports", j)
            host = r.integer(port, "hostPort", pp, ident, minimum=0, maximum=65535) or 0
            if host > 0:
                out.append((r.string(port, "hostIP", pp, ident) or "0.0.0.0", r.string(port, "protocol", pp, ident) or "TCP", host))
    return tuple(out)


def read_priority_class(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, _, name = metadata(o, ptr, "PriorityClass", namespaced=False)
    value = r.integer(o, "value", ptr, ident, required=True, maximum=2_000_001_000)
    pc = PriorityClass(
        name=name,
        value=value,  # type: ignore[arg-type]
        global_default=bool(r.boolean(o, "globalDefault", ptr, ident, default=False)),
        preemption_policy=r.string(o, "preemptionPolicy", ptr, ident, default="PreemptLowerPriority"),
    )
    d.priority_classes.append((pc, ptr, ident))


def read_namespace(o: dict, ptr: str, d: Draft) -> None:
    """A Namespace's labels, with ``kubernetes.io/metadata.name`` (the API server sets it on
    every Namespace): what a pod affinity term's ``namespaceSelector`` matches."""
    meta, ident, _, name = metadata(o, ptr, "Namespace", namespaced=False)
    if name in d.namespaces:
        raise InputError(f"duplicate Namespace {name}", join_pointer(ptr, "metadata", "name"), ident)
    labels = r.str_map(meta, "labels", join_pointer(ptr, "metadata"), ident)
    d.namespaces[name] = {**labels, NAMESPACE_NAME_LABEL: name}


def read_pdb(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, ns, name = metadata(o, ptr, "PodDisruptionBudget", namespaced=True)
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    status = r.obj(o, "status", ptr, ident)
    st = join_pointer(ptr, "status")
    min_av = _int_or_percent(spec.get("minAvailable"), join_pointer(sp, "minAvailable"), ident)
    max_un = _int_or_percent(spec.get("maxUnavailable"), join_pointer(sp, "maxUnavailable"), ident)
    if min_av is not None and max_un is not None:
        raise InputError("set minAvailable or maxUnavailable, not both", join_pointer(sp, "maxUnavailable"), ident)
    disrupted = r.obj(status, "disruptedPods", st, ident)
    d.pdbs.append(
        PodDisruptionBudget(
            namespace=ns,
            name=name,
            selector=selector(spec.get("selector"), join_pointer(sp, "selector"), ident),
            min_available=min_av,
            max_unavailable=max_un,
            disruptions_allowed=r.integer(status, "disruptionsAllowed", st, ident, default=0, minimum=0) or 0,
            disrupted_pods=frozenset(disrupted),
            unhealthy_pod_eviction_policy=r.string(
                spec, "unhealthyPodEvictionPolicy", sp, ident, default="IfHealthyBudget"
            ),
        )
    )


def read_resource_quota(o: dict, ptr: str, d: Draft) -> None:
    """A ``ResourceQuota``: its status's ``hard`` and ``used`` (what Volcano's cache keeps;
    scopes are not read, as Volcano's ``resourcequota`` plugin does not support them)."""
    meta, ident, ns, name = metadata(o, ptr, "ResourceQuota", namespaced=True)
    status = r.obj(o, "status", ptr, ident)
    st = join_pointer(ptr, "status")
    hard = _resource_list(status.get("hard"), join_pointer(st, "hard"), ident)
    used = _resource_list(status.get("used"), join_pointer(st, "used"), ident)
    if (ns, name) in d.resource_quotas:
        raise InputError(f"duplicate ResourceQuota {ns}/{name}", join_pointer(ptr, "metadata", "name"), ident)
    d.resource_quotas[ns, name] = ResourceQuota(namespace=ns, name=name, hard=hard or {}, used=used or {})


DEVICE_CONFIG_KEY = "device-config.yaml"


def read_configmap(o: dict, ptr: str, d: Draft) -> None:
    """Volcano's controller ConfigMap carries the label-discovery topology types; a ConfigMap
    with a ``device-config.yaml`` text is kept for the ``deviceshare`` plugin (and still counted
    as ignored: nothing else reads it)."""
    meta, ident, ns, name = metadata(o, ptr, "ConfigMap", namespaced=True)
    d.configmaps.add((ns, name))
    data = r.obj(o, "data", ptr, ident)
    device = data.get(DEVICE_CONFIG_KEY)
    if isinstance(device, str):  # (Volcano's vGPU device config: the deviceshare plugin reads it, if configured)
        d.device_configs.setdefault((ns, name), []).append((device, join_pointer(ptr, "data", DEVICE_CONFIG_KEY)))
    conf = data.get("volcano-controller.conf")
    if name != "volcano-controller-configmap" or not isinstance(conf, str):
        d.ignored["ConfigMap"] = d.ignored.get("ConfigMap", 0) + 1
        return
    cp = join_pointer(ptr, "data", "volcano-controller.conf")
    parsed = parse_yaml_text(conf, cp, "volcano-controller.conf", ident) or {}
    if not isinstance(parsed, dict):
        raise InputError("volcano-controller.conf must be a YAML mapping", cp, ident)
    read_discovery(parsed.get("networkTopologyDiscovery"), cp, ident, d)


def read_discovery(raw: Any, ptr: str, ident: r.Ident, d: Draft) -> None:
    """Volcano ``networkTopologyDiscovery``: only enabled ``label`` sources build trees."""
    if raw is None:
        return
    if not isinstance(raw, list):
        raise InputError("networkTopologyDiscovery must be a list", ptr, ident)
    for i, src in enumerate(raw):
        sp = join_pointer(ptr, i)
        if not isinstance(src, dict):
            raise InputError("a discovery source must be an object", sp, ident)
        if src.get("source") != "label" or src.get("enabled") is False:
            continue
        types = r.obj(r.obj(src, "config", sp, ident), "networkTopologyTypes", join_pointer(sp, "config"), ident)
        for tname in sorted(types):
            tp = join_pointer(sp, "config", "networkTopologyTypes", tname)
            levels = types[tname]
            if not isinstance(levels, list) or not levels:
                raise InputError("a topology type must list its label levels", tp, ident)
            keys = []
            for j, lv in enumerate(levels):
                if not isinstance(lv, dict) or not isinstance(lv.get("nodeLabel"), str):
                    raise InputError("each level needs a string 'nodeLabel'", join_pointer(tp, j), ident)
                keys.append(lv["nodeLabel"])
            d.topologies.append(TopologySource("volcano-discovery", tname, keys, tp))


# Volcano -------------------------------------------------------------------------------
def subgroup_policies(raw: list, ptr: str, ident: r.Ident, notes: list[str] | None = None) -> list[SubGroupPolicy]:
    """A PodGroup's ``subGroupPolicy``. With ``notes`` (Volcano's): a ``labelSelector`` whose
    expression ``LabelSelectorAsSelector`` refuses makes the policy match no pod (Volcano
    logs it; its pods are in the default sub-job), said in ``notes``."""
    out = []
    names = set()
    for i, p in enumerate(raw):
        pp = join_pointer(ptr, i)
        if not isinstance(p, dict):
            raise InputError("a subGroupPolicy entry must be an object", pp, ident)
        name = r.string(p, "name", pp, ident, required=True)
        if name in names:
            raise InputError(f"duplicate subGroupPolicy name {name!r}", join_pointer(pp, "name"), ident)
        names.add(name)
        keys = r.lst(p, "matchLabelKeys", pp, ident)
        for j, k in enumerate(keys):
            if not isinstance(k, str):
                raise InputError("matchLabelKeys entries must be strings", join_pointer(pp, "matchLabelKeys", j), ident)
        out.append(
            SubGroupPolicy(
                name=name,
                sub_group_size=r.integer(p, "subGroupSize", pp, ident, default=1, minimum=1) or 1,
                min_sub_groups=r.integer(p, "minSubGroups", pp, ident, default=0, minimum=0) or 0,
                selector=_policy_selector(p.get("labelSelector"), join_pointer(pp, "labelSelector"), ident, name, notes),
                match_label_keys=tuple(keys),
                network_topology=network_topology(p.get("networkTopology"), join_pointer(pp, "networkTopology"), ident),
            )
        )
    return out


def _policy_selector(raw: Any, ptr: str, ident: r.Ident, policy: str, notes: list[str] | None) -> LabelSelector | None:
    if raw is None:
        return None
    invalid: list[str] | None = [] if notes is not None else None
    sel = LabelSelector.parse(raw, ptr, ident, invalid)
    if invalid and notes is not None:
        who = ident or {}
        notes.append(f"{who.get('kind', 'PodGroup')} {who.get('namespace', '')}/{who.get('name', '')}: subGroupPolicy "
                     f"{policy!r} has a labelSelector Volcano cannot use ({'; '.join(invalid)}): it matches no pod, so "
                     "its pods are in the job's default sub-job, as Volcano logs and does")  # fmt: skip
    return sel


def annotated_topology(ann: dict[str, str]) -> NetworkTopology | None:
    """A Volcano PodGroup's topology from its ``volcano.sh/network-topology-*`` annotations
    (read when its spec has none)."""
    if VOLCANO_NT_MODE not in ann:
        return None
    tier = ann.get(VOLCANO_NT_TIER)
    return NetworkTopology(
        mode=ann[VOLCANO_NT_MODE] if ann[VOLCANO_NT_MODE] in ("hard", "soft") else "hard",
        highest_tier_allowed=int(tier) if tier and tier.isascii() and tier.isdigit() and len(tier) <= 18 else None,
    )


def read_volcano_podgroup(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, ns, name = metadata(o, ptr, "PodGroup", namespaced=True)
    mp = join_pointer(ptr, "metadata")
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    status = r.obj(o, "status", ptr, ident)
    ann = r.str_map(meta, "annotations", mp, ident)
    labels = r.str_map(meta, "labels", mp, ident)
    mtm: dict[str, int] = {}
    for role, v in r.obj(spec, "minTaskMember", sp, ident).items():
        mtm[role] = r.integer({role: v}, role, join_pointer(sp, "minTaskMember"), ident, minimum=0) or 0
    nt = network_topology(spec.get("networkTopology"), join_pointer(sp, "networkTopology"), ident) or annotated_topology(ann)
    min_res = spec.get("minResources")
    g = GroupDraft(
        source="volcano",
        namespace=ns,
        name=name,
        uid=r.string(meta, "uid", mp, ident),
        min_member=r.integer(spec, "minMember", sp, ident, default=1, minimum=0) or 0,
        min_task_member=mtm,
        min_resources=None if min_res is None else quantity_map(min_res, join_pointer(sp, "minResources"), ident),
        queue=r.string(spec, "queue", sp, ident),
        priority_class=priority_class_name(spec, sp, ident),
        network_topology=nt,
        subgroup_policies=subgroup_policies(r.lst(spec, "subGroupPolicy", sp, ident), join_pointer(sp, "subGroupPolicy"), ident,
                                            d.object_notes),
        # (JobInfo.IsPending: no phase is Pending; Volcano's enqueue admits it, its allocate flips it)
        phase=r.string(status, "phase", join_pointer(ptr, "status"), ident) or "Pending",
        preemptable=r.flag(ann.get(VOLCANO_PREEMPTABLE, labels.get(VOLCANO_PREEMPTABLE))),
        created=r.timestamp(meta.get("creationTimestamp"), join_pointer(mp, "creationTimestamp"), ident),
        annotations=ann,
        pointer=ptr,
        ident=ident,
    )
    koordinator_annotations(g, ann, mp, ident)
    d.groups.append(g)


def _resource_list(raw: Any, ptr: str, ident: r.Ident) -> dict[str, int] | None:
    if raw is None:
        return None
    return quantity_map(raw, ptr, ident)


def read_volcano_queue(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, _, name = metadata(o, ptr, "Queue", namespaced=False)
    mp = join_pointer(ptr, "metadata")
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    status = r.obj(o, "status", ptr, ident)
    guarantee = r.obj(spec, "guarantee", sp, ident)
    ann = r.str_map(meta, "annotations", mp, ident)
    hierarchy, weights = ann.get(VOLCANO_HIERARCHY, ""), ann.get(VOLCANO_HIERARCHY_WEIGHTS, "")
    if hierarchy and weights and not hierarchy.startswith("root") and not meta.get("uid"):
        # a manifest not yet created: Volcano's mutating webhook adds the root on CREATE
        hierarchy, weights = f"root/{hierarchy}", f"1/{weights}"
    d.queues.append(
        Queue(
            name=name,
            source="volcano",
            weight=r.integer(spec, "weight", sp, ident, default=1, minimum=1, maximum=65535) or 1,
            capability=_resource_list(spec.get("capability"), join_pointer(sp, "capability"), ident),
            deserved=_resource_list(spec.get("deserved"), join_pointer(sp, "deserved"), ident),
            guarantee=_resource_list(guarantee.get("resource"), join_pointer(sp, "guarantee", "resource"), ident),
            reclaimable=r.boolean(spec, "reclaimable", sp, ident, default=True) is not False,
            priority=r.integer(spec, "priority", sp, ident, default=0) or 0,
            parent=r.string(spec, "parent", sp, ident),
            state=r.string(status, "state", join_pointer(ptr, "status"), ident, default="Open") or "Open",
            created=r.timestamp(meta.get("creationTimestamp"), join_pointer(mp, "creationTimestamp"), ident),
            dequeue_strategy=r.string(spec, "dequeueStrategy", sp, ident, default="traverse") or "traverse",
            affinity=node_group_affinity(spec.get("affinity"), join_pointer(sp, "affinity"), ident),
            node_group_limits=ann.get(VOLCANO_NODEGROUP_LIMITS),
            hierarchy=hierarchy,
            hierarchy_weights=weights,
            pointer=ptr,
        )
    )


def node_group_affinity(raw: Any, ptr: str, ident: r.Ident) -> NodeGroupAffinity | None:
    """A Volcano Queue's ``affinity`` (``nodeGroupAffinity`` / ``nodeGroupAntiAffinity``,
    each with required and preferred lists of node group names); None when absent or null."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InputError(f"'affinity' must be an object, not {r.type_name(raw)}", ptr, ident)
    lists: list[tuple[str, ...]] = []
    for part in ("nodeGroupAffinity", "nodeGroupAntiAffinity"):
        rules = r.obj(raw, part, ptr, ident)
        pp = join_pointer(ptr, part)
        for when in ("requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"):
            names = r.lst(rules, when, pp, ident)
            for i, v in enumerate(names):
                if not isinstance(v, str):
                    raise InputError(f"a node group name must be a string, not {r.type_name(v)}", join_pointer(pp, when, i), ident)
            lists.append(tuple(names))
    return NodeGroupAffinity(*lists)


def read_hypernode(o: dict, ptr: str, d: Draft) -> None:
    d.hypernodes.append(parse_hypernode(o, ptr))


def read_node_shard(o: dict, ptr: str, d: Draft) -> None:
    """Volcano's ``NodeShard`` (``app.model.nodeshard``): ``spec.nodesDesired`` (required by its
    CRD) and ``status.nodesInUse``."""
    meta, ident, _, name = metadata(o, ptr, "NodeShard", namespaced=False)
    if name in d.node_shards:
        raise InputError(f"duplicate NodeShard {name}", join_pointer(ptr, "metadata", "name"), ident)
    spec = r.obj(o, "spec", ptr, ident)
    if "nodesDesired" not in spec:
        raise InputError("'nodesDesired' is required (the NodeShard CRD)", join_pointer(ptr, "spec", "nodesDesired"), ident)
    status = r.obj(o, "status", ptr, ident)
    d.node_shards[name] = NodeShard(
        name,
        read_node_names(spec["nodesDesired"], join_pointer(ptr, "spec", "nodesDesired"), ident),
        read_node_names(status.get("nodesInUse"), join_pointer(ptr, "status", "nodesInUse"), ident),
    )


# KAI -----------------------------------------------------------------------------------
def read_kai_queue(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, _, name = metadata(o, ptr, "Queue", namespaced=False)
    mp = join_pointer(ptr, "metadata")
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    res = r.obj(spec, "resources", sp, ident)
    kai: dict[str, KaiResource] = {}
    unset: list[str] = []
    for rname in ("gpu", "cpu", "memory"):
        rp = join_pointer(sp, "resources", rname)
        rv = r.obj(res, rname, join_pointer(sp, "resources"), ident)
        if rv.get("limit") is None:
            unset.append(rname)
        kai[rname] = KaiResource(  # (QueueResource's float64 fields: one not written is 0, a limit of 0 included)
            quota=r.number(rv, "quota", rp, ident, default=0.0) or 0.0,
            limit=r.number(rv, "limit", rp, ident, default=0.0) or 0.0,
            over_quota_weight=r.number(rv, "overQuotaWeight", rp, ident, default=0.0) or 0.0,
        )
    if unset:
        d.notes.append(f"KAI Queue {name}: spec.resources {'/'.join(unset)} limit not set: KAI reads a limit not written "
                       f"as 0, so no job asking for {'/'.join(unset)} fits the queue (-1 is no limit)")  # fmt: skip
    pmr = spec.get("preemptMinRuntime")
    rmr = spec.get("reclaimMinRuntime")
    d.queues.append(
        Queue(
            name=name,
            source="kai",
            priority=r.integer(spec, "priority", sp, ident, default=100) or 0,
            parent=r.string(spec, "parentQueue", sp, ident),
            created=r.timestamp(meta.get("creationTimestamp"), join_pointer(mp, "creationTimestamp"), ident),
            kai=kai,
            preempt_min_runtime=None if pmr is None else r.duration(pmr, join_pointer(sp, "preemptMinRuntime"), ident),
            reclaim_min_runtime=None if rmr is None else r.duration(rmr, join_pointer(sp, "reclaimMinRuntime"), ident),
            kai_node_pool=kai_node_pool(meta, d.kai_pool_key),
            pointer=ptr,
        )
    )


def kai_topology(raw: Any, ptr: str, ident: r.Ident) -> NetworkTopology | None:
    """KAI ``topologyConstraint``: required level = hard limit, preferred = try first."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InputError("'topologyConstraint' must be an object", ptr, ident)
    required = r.string(raw, "requiredTopologyLevel", ptr, ident) or None
    preferred = r.string(raw, "preferredTopologyLevel", ptr, ident) or None
    name = r.string(raw, "topology", ptr, ident)
    if not name and not required and not preferred:
        return None
    return NetworkTopology(
        mode="hard" if required else "soft", highest_tier_name=required, preferred_tier_name=preferred, topology_name=name
    )  # (what the topology name means is settled once the snapshot's topology is known: build.kai_topology_names)


def read_kai_bind_request(o: dict, ptr: str, d: Draft) -> None:
    """KAI's ``BindRequest``: the scheduler chose ``spec.selectedNode`` for ``spec.podName``
    and the binder has not bound it yet. Given-up ones (``Failed`` with
    ``status.failedAttempts`` at ``spec.backoffLimit``, or no limit) are read and left out;
    a failed one still being retried keeps its pod Binding, as KAI does. A finished one
    (``Succeeded``) binds nothing, but, like one in flight, gives its pod the GPU groups of
    its ``spec.selectedGPUGroups`` (``GetBindRequestForPod``: every BindRequest but a
    given-up one)."""
    _, ident, ns, name = metadata(o, ptr, "BindRequest", namespaced=True)
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    status = r.obj(o, "status", ptr, ident)
    st = join_pointer(ptr, "status")
    pod = r.string(spec, "podName", sp, ident, required=True)
    node = r.string(spec, "selectedNode", sp, ident, required=True)
    limit = r.integer(spec, "backoffLimit", sp, ident, minimum=0)
    phase = r.string(status, "phase", st, ident)
    if phase not in ("", "Pending", "Succeeded", "Failed"):
        raise InputError("phase must be Pending, Succeeded or Failed", join_pointer(st, "phase"), ident)
    failed = phase == "Failed" and (limit is None or (r.integer(status, "failedAttempts", st, ident, default=0, minimum=0) or 0) >= limit)
    groups = []
    for i, g in enumerate(r.lst(spec, "selectedGPUGroups", sp, ident)):
        if type(g) is not str or not g:
            raise InputError("a selected GPU group must be a non-empty string", join_pointer(sp, "selectedGPUGroups", i), ident)
        groups.append(g)
    if failed:
        return
    done = phase == "Succeeded"
    if not done:
        for key, value in (("podName", pod), ("selectedNode", node)):
            if not value:  # a request in flight must say which pod goes where
                raise InputError(f"'{key}' must not be empty", join_pointer(sp, key), ident)
    d.bind_requests.append(BindRequestDraft(ns, pod, node, ptr, ident, name, tuple(groups), done))




def legacy_mig(ann: dict[str, str]) -> bool:
    """KAI's ``updateLegacyMigResourceRequestFromAnnotations``: an annotation named after a
    MIG resource whose value is an integer makes the pod a legacy MIG task."""
    return any(k.startswith(KAI_MIG_PREFIX) and go_int(v) is not None for k, v in ann.items())


def go_int(value: str) -> int | None:
    """``value`` as Go's ``strconv.Atoi`` / ``ParseInt(value, 10, 64)`` reads it (an
    optional sign and decimal digits, within int64), else None."""
    return parse_int(value)


def kai_task_priority(value: str) -> int:
    """A ``kai.scheduler/task-priority`` label as KAI reads it (``strconv.Atoi``), else
    :data:`UNPARSABLE_TASK_PRIORITY`."""
    v = go_int(value)
    return UNPARSABLE_TASK_PRIORITY if v is None else v


def kai_node_pool(meta: dict, key: str) -> str | None:
    """The object's node-pool label ``key`` (``kai.scheduler/node-pool`` unless the ``kai``
    profile's ``--nodepool-label-key`` says otherwise: ``Draft.kai_pool_key``), None without
    one (its labels were checked with its metadata; the pod-grouper's PodGroups carry their
    owners' as a mapping)."""
    labels = meta.get("labels")
    value = labels.get(key) if isinstance(labels, Mapping) and key else None
    return value if isinstance(value, str) else None


def kai_backed_off(meta: dict, spec: dict, status: dict, ptr: str, ident: r.Ident, key: str) -> bool:
    """``isPodGroupUpForScheduler`` false: ``spec.schedulingBackoff`` set and not -1 (nil is
    -1), and the last of ``status.schedulingConditions`` (the greatest ``transitionID`` as
    ``strconv.Atoi`` reads it, an unreadable one -1; the first of equals) is for the
    PodGroup's own node pool (its node-pool label ``key``, else ``default``): KAI's
    shard leaves it out of the snapshot this cycle."""
    sp, stp = join_pointer(ptr, "spec"), join_pointer(ptr, "status")
    backoff = r.integer(spec, "schedulingBackoff", sp, ident)
    if backoff is None or backoff == -1:
        return False
    last: tuple[int, str] | None = None
    for i, c in enumerate(r.lst(status, "schedulingConditions", stp, ident)):
        cp = join_pointer(stp, "schedulingConditions", i)
        if not isinstance(c, dict):
            raise InputError("a scheduling condition must be an object", cp, ident)
        tid = go_int(r.string(c, "transitionID", cp, ident) or "")
        pool = r.string(c, "nodePool", cp, ident)
        if last is None or (-1 if tid is None else tid) > last[0]:
            last = (-1 if tid is None else tid, pool)
    if last is None:
        return False
    return last[1] == (kai_node_pool(meta, key) or "default")


def read_kai_podgroup(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, ns, name = metadata(o, ptr, "PodGroup", namespaced=True)
    mp = join_pointer(ptr, "metadata")
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    pre = r.string(spec, "preemptibility", sp, ident)
    if pre not in ("", "preemptible", "non-preemptible"):
        raise InputError(
            "preemptibility must be 'preemptible' or 'non-preemptible'", join_pointer(sp, "preemptibility"), ident
        )
    policies = []
    declared: list[str | None] = []  # each sub-group's parent as written (None: no parent)
    for i, sg in enumerate(r.lst(spec, "subGroups", sp, ident)):
        gp = join_pointer(sp, "subGroups", i)
        if not isinstance(sg, dict):
            raise InputError("a sub-group must be an object", gp, ident)
        sg_name = r.string(sg, "name", gp, ident, required=True)
        declared.append(None if sg.get("parent") is None else r.string(sg, "parent", gp, ident))
        policies.append(
            SubGroupPolicy(
                name=sg_name,
                sub_group_size=r.integer(sg, "minMember", gp, ident, default=1, minimum=0) or 1,  # KAI: max(minMember, 1)
                min_sub_groups=1,
                selector=LabelSelector.parse({"matchLabels": {KAI_SUBGROUP_LABEL: sg_name}}, gp, ident),
                network_topology=kai_topology(sg.get("topologyConstraint"), join_pointer(gp, "topologyConstraint"), ident),
            )
        )
    fallback = kai_subgroup_parents(policies, declared, sp, ident)
    unreachable = kai_unreachable(policies) if fallback is None else []
    if unreachable:
        gone = set(unreachable)
        policies = [p for p in policies if p.name not in gone]
    root_topology = kai_topology(spec.get("topologyConstraint"), join_pointer(sp, "topologyConstraint"), ident)
    if fallback is not None:  # KAI's default structure: no constraint anywhere, no sub-group sets
        root_topology = None
        for p in policies:
            p.network_topology = p.parent = None
    parents = {p.parent for p in policies if p.parent}
    for p in policies:  # a sub-group others name as parent is a set of them (KAI's createSubGroupInfos):
        if p.name in parents:  # no pods and no minimum of its own, only its topology constraint
            p.min_sub_groups = 0
    d.groups.append(
        GroupDraft(
            source="kai",
            namespace=ns,
            name=name,
            uid=r.string(meta, "uid", mp, ident),
            min_member=r.integer(spec, "minMember", sp, ident, default=1, minimum=0) or 0,
            queue=r.string(spec, "queue", sp, ident),
            priority_class=priority_class_name(spec, sp, ident),
            network_topology=root_topology,
            subgroup_policies=policies,
            phase=r.string(r.obj(o, "status", ptr, ident), "phase", join_pointer(ptr, "status"), ident),
            created=r.timestamp(meta.get("creationTimestamp"), join_pointer(mp, "creationTimestamp"), ident),
            kai_preemptibility=pre,
            kai_backed_off=kai_backed_off(meta, spec, r.obj(o, "status", ptr, ident), ptr, ident, d.kai_pool_key),
            kai_node_pool=kai_node_pool(meta, d.kai_pool_key),
            kai_fallback=fallback,
            kai_unreachable=tuple(unreachable),
            annotations=r.str_map(meta, "annotations", mp, ident),
            pointer=ptr,
            ident=ident,
        )
    )


def read_level_topology(kind: str) -> Callable[[dict, str, Draft], None]:
    """KAI and Kueue ``Topology``: ``spec.levels[].nodeLabel``, coarsest first."""

    def read(o: dict, ptr: str, d: Draft) -> None:
        meta, ident, _, name = metadata(o, ptr, "Topology", namespaced=False)
        spec = r.obj(o, "spec", ptr, ident, required=True)
        sp = join_pointer(ptr, "spec")
        levels = r.lst(spec, "levels", sp, ident, required=True)
        if not 1 <= len(levels) <= 16:
            raise InputError("a Topology has 1 to 16 levels", join_pointer(sp, "levels"), ident)
        keys: list[str] = []
        for i, lv in enumerate(levels):
            lp = join_pointer(sp, "levels", i)
            if not isinstance(lv, dict):
                raise InputError("a level must be an object", lp, ident)
            key = r.string(lv, "nodeLabel", lp, ident, required=True)
            if key in keys:
                raise InputError(f"level {key!r} appears twice", join_pointer(lp, "nodeLabel"), ident)
            if key == "kubernetes.io/hostname" and i != len(levels) - 1:
                raise InputError("kubernetes.io/hostname may only be the last level", join_pointer(lp, "nodeLabel"), ident)
            keys.append(key)
        d.topologies.append(TopologySource(kind, name, keys, ptr))

    return read


def kai_subgroup_parents(policies: list[SubGroupPolicy], declared: list[str | None], sp: str, ident: r.Ident) -> str | None:
    """A KAI PodGroup's sub-groups as KAI's admission webhook checks them
    (``validateSubGroups``: names unique, every ``parent`` the name of a sub-group, no cycle
    of parents; a PodGroup failing them never exists, so each is a 422 at the field), then
    their parents as ``FromPodGroup`` reads them: lowercased (``formatParentName``). Sets
    each policy's ``parent``. Returns why ``FromPodGroup`` fails (a lowercased parent names
    no sub-group), when it does: KAI then keeps its default structure for the job
    (:func:`app.kai.jobs.kai_pod_sets`); None otherwise."""
    names: dict[str, int] = {}
    for i, p in enumerate(policies):
        if p.name in names:
            raise InputError(f"duplicate subgroup name {p.name}", join_pointer(sp, "subGroups", i, "name"), ident)
        names[p.name] = i
    for i, (p, parent) in enumerate(zip(policies, declared, strict=True)):
        if parent is not None and parent not in names:
            raise InputError(f"parent {parent} of {p.name} was not found", join_pointer(sp, "subGroups", i, "parent"), ident)

    _, looped = _parent_walk([None if at is None else names[at] for at in declared])
    if looped:
        raise InputError("cycle detected in subgroups", join_pointer(sp, "subGroups", min(looped), "parent"), ident)
    lowered = [None if parent is None else parent.lower() for parent in declared]
    for p, parent, low in zip(policies, declared, lowered, strict=True):
        if low is not None and low not in names:
            return f"parent {parent!r} of sub-group {p.name!r} names no sub-group once lowercased"
    for p, low in zip(policies, lowered, strict=True):
        p.parent = low
    return None


def kai_unreachable(policies: list[SubGroupPolicy]) -> list[str]:
    """The sub-groups whose (lowercased) parents lead into a cycle rather than to the
    PodGroup: names differing only in case can loop once lowercased although the webhook
    saw no cycle. ``FromPodGroup`` hangs them on each other, never on the root set, so
    they are no sets or pod sets of the job (``GetAllPodSets`` walks from the root)."""
    index = {p.name: i for i, p in enumerate(policies)}
    reach, _ = _parent_walk([None if p.parent is None else index[p.parent] for p in policies])
    return [p.name for p, ok in zip(policies, reach, strict=True) if not ok]


def _parent_walk(parent_of: list[int | None]) -> tuple[list[bool], list[int]]:
    """For sub-groups whose parents are ``parent_of`` (indices; None: the PodGroup): whether
    each one's chain of parents reaches the PodGroup, and the sub-groups on a cycle. Each
    sub-group is walked once: a walk stops where an earlier one passed."""
    walk = [-1] * len(parent_of)  # the walk that first reached each sub-group
    reach = [False] * len(parent_of)
    looped: list[int] = []
    for i in range(len(parent_of)):
        path: list[int] = []
        j: int | None = i
        while j is not None and walk[j] < 0:
            walk[j] = i
            path.append(j)
            j = parent_of[j]
        if j is not None and walk[j] == i:  # back on this walk's own path: a cycle through j
            k = j
            while True:
                looped.append(k)
                k = parent_of[k]  # type: ignore[assignment]
                if k == j:
                    break
        ok = j is None or (walk[j] != i and reach[j])
        for k in path:
            reach[k] = ok
    return reach, looped


# Koordinator / scheduler-plugins ---------------------------------------------------------
def koordinator_annotations(g: GroupDraft, ann: dict[str, str], mp: str, ident: r.Ident) -> None:
    """Koordinator's gang annotations on a PodGroup override its spec (as upstream)."""
    extra = {k[len(KOORD):]: v for k, v in ann.items() if k.startswith(KOORD)}
    apply_koordinator(g, extra, join_pointer(mp, "annotations"), ident)


def apply_koordinator(g: GroupDraft, extra: dict[str, str], ptr: str, ident: r.Ident) -> None:
    def at(key: str) -> str:
        return join_pointer(ptr, KOORD + key)

    if "min-available" in extra:
        try:
            g.min_member = int(extra["min-available"])
            if g.min_member < 0:
                raise ValueError
        except ValueError:
            raise InputError("min-available must be a non-negative integer", at("min-available"), ident) from None
    if "total-number" in extra:
        try:
            g.total_number = int(extra["total-number"])
        except ValueError:
            raise InputError("total-number must be an integer", at("total-number"), ident) from None
    if "mode" in extra:
        if extra["mode"] not in ("Strict", "NonStrict"):
            raise InputError("mode must be 'Strict' or 'NonStrict'", at("mode"), ident)
        g.gang_mode = extra["mode"]
    if "match-policy" in extra:
        if extra["match-policy"] not in ("once-satisfied", "only-waiting", "waiting-and-running"):
            raise InputError(
                "match-policy must be once-satisfied, only-waiting or waiting-and-running", at("match-policy"), ident
            )
        g.match_policy = extra["match-policy"]
    if "waiting-time" in extra:
        g.waiting_time = r.duration(extra["waiting-time"], at("waiting-time"), ident)
    if extra.get("groups"):
        try:
            groups = orjson.loads(extra["groups"])
            if not isinstance(groups, list) or not all(isinstance(x, str) for x in groups):
                raise ValueError
        except (ValueError, orjson.JSONDecodeError):
            raise InputError('groups must be a JSON list such as ["ns/gang-a","ns/gang-b"]', at("groups"), ident) from None
        g.gang_groups = tuple(sorted(set(groups)))


def read_sigs_podgroup(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, ns, name = metadata(o, ptr, "PodGroup", namespaced=True)
    mp = join_pointer(ptr, "metadata")
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    timeout = r.integer(spec, "scheduleTimeoutSeconds", sp, ident)
    min_res = spec.get("minResources")
    g = GroupDraft(
        source="scheduler-plugins",
        namespace=ns,
        name=name,
        uid=r.string(meta, "uid", mp, ident),
        min_member=r.integer(spec, "minMember", sp, ident, default=1, minimum=0) or 0,
        min_resources=None if min_res is None else quantity_map(min_res, join_pointer(sp, "minResources"), ident),
        phase=r.string(r.obj(o, "status", ptr, ident), "phase", join_pointer(ptr, "status"), ident),
        created=r.timestamp(meta.get("creationTimestamp"), join_pointer(mp, "creationTimestamp"), ident),
        waiting_time=float(timeout) if timeout and timeout > 0 else None,
        pointer=ptr,
        ident=ident,
    )
    koordinator_annotations(g, r.str_map(meta, "annotations", mp, ident), mp, ident)
    d.groups.append(g)


# Kubernetes Workload API -----------------------------------------------------------------
def _disruption_mode(raw: Any, ptr: str, ident: r.Ident) -> str:
    """``Pod``/``PodGroup`` (v1alpha2) or ``{single: {}}``/``{all: {}}`` (v1beta1)."""
    if raw is None:
        return ""
    if raw in ("Pod", "PodGroup"):
        return raw
    if isinstance(raw, dict) and len(raw) == 1 and next(iter(raw)) in ("single", "all"):
        return "Pod" if "single" in raw else "PodGroup"
    raise InputError("disruptionMode must be 'Pod', 'PodGroup', {single: {}} or {all: {}}", ptr, ident)


def _policy_min_count(pol: Any, ptr: str, ident: r.Ident) -> int | None:
    """``{gang: {minCount}}`` → minCount; ``{basic: {}}`` → None (no gang)."""
    if not isinstance(pol, dict) or len(pol) != 1 or next(iter(pol)) not in ("gang", "basic"):
        raise InputError("policy must hold exactly one of 'basic' or 'gang'", ptr, ident)
    if "basic" in pol:
        return None
    gang = r.obj(pol, "gang", ptr, ident, required=True)
    return r.integer(gang, "minCount", join_pointer(ptr, "gang"), ident, required=True, minimum=1)


def _topology_key(raw: Any, ptr: str, ident: r.Ident) -> str:
    if raw is None:
        return ""
    if not isinstance(raw, dict):
        raise InputError("'schedulingConstraints' must be an object", ptr, ident)
    topo = r.lst(raw, "topology", ptr, ident)
    if len(topo) > 1:
        raise InputError("at most one topology constraint is allowed", join_pointer(ptr, "topology"), ident)
    if not topo:
        return ""
    if not isinstance(topo[0], dict):
        raise InputError("a topology constraint must be an object", join_pointer(ptr, "topology", 0), ident)
    return r.string(topo[0], "key", join_pointer(ptr, "topology", 0), ident, required=True)


def _template(t: dict, tp: str, ident: r.Ident, policy_key: str) -> WorkloadTemplate:
    mode = _disruption_mode(t.get("disruptionMode"), join_pointer(tp, "disruptionMode"), ident)
    min_count = _policy_min_count(t.get(policy_key), join_pointer(tp, policy_key), ident)
    if mode == "PodGroup" and min_count is None:
        raise InputError("disruptionMode PodGroup needs a gang policy", join_pointer(tp, "disruptionMode"), ident)
    return WorkloadTemplate(
        min_count=min_count,
        disruption_mode=mode or "Pod",
        priority_class=r.string(t, "priorityClassName", tp, ident),
        priority=r.integer(t, "priority", tp, ident),
        preemption_policy=r.string(t, "preemptionPolicy", tp, ident),
        topology_key=_topology_key(t.get("schedulingConstraints"), join_pointer(tp, "schedulingConstraints"), ident),
    )


def read_workload(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, ns, name = metadata(o, ptr, "Workload", namespaced=True)
    spec = r.obj(o, "spec", ptr, ident, required=True)
    sp = join_pointer(ptr, "spec")
    templates: dict[str, WorkloadTemplate] = {}
    if "podGroups" in spec:  # v1alpha1 (1.35)
        key, policy_key = "podGroups", "policy"
    else:  # v1alpha2 / v1beta1
        key, policy_key = "podGroupTemplates", "schedulingPolicy"
    items = r.lst(spec, key, sp, ident, required=True)
    if len(items) > 8:
        raise InputError("a Workload holds at most 8 pod groups", join_pointer(sp, key), ident)
    for i, t in enumerate(items):
        tp = join_pointer(sp, key, i)
        if not isinstance(t, dict):
            raise InputError("a pod group template must be an object", tp, ident)
        tname = r.string(t, "name", tp, ident, required=True)
        if tname in templates:
            raise InputError(f"duplicate pod group name {tname!r}", join_pointer(tp, "name"), ident)
        templates[tname] = _template(t, tp, ident, policy_key)
    if (ns, name) in d.workloads:
        raise InputError(f"duplicate Workload {ns}/{name}", join_pointer(ptr, "metadata", "name"), ident)
    d.workloads[(ns, name)] = templates


def read_workload_podgroup(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, ns, name = metadata(o, ptr, "PodGroup", namespaced=True)
    mp = join_pointer(ptr, "metadata")
    spec = r.obj(o, "spec", ptr, ident, required=True)
    sp = join_pointer(ptr, "spec")
    template: tuple[str, str] | None = None
    ref = spec.get("podGroupTemplateRef")  # v1alpha2
    if isinstance(ref, dict) and isinstance(ref.get("workload"), dict):
        w = ref["workload"]
        template = (str(w.get("workloadName", "")), str(w.get("podGroupTemplateName", "")))
    ref = spec.get("workloadRef")  # v1beta1
    if isinstance(ref, dict):
        template = (str(ref.get("workloadName", "")), str(ref.get("templateName", "")))
    has_policy = spec.get("schedulingPolicy") is not None
    t = _template(spec, sp, ident, "schedulingPolicy") if has_policy else None
    g = GroupDraft(
        source="workload",
        namespace=ns,
        name=name,
        uid=r.string(meta, "uid", mp, ident),
        created=r.timestamp(meta.get("creationTimestamp"), join_pointer(mp, "creationTimestamp"), ident),
        template=template,
        pointer=ptr,
        ident=ident,
    )
    g.preemption_priority = r.integer(spec, "preemptionPriority", sp, ident)
    g.preemption_priority_class = r.string(spec, "preemptionPriorityClassName", sp, ident)
    if t is not None:
        apply_template(g, t, explicit=spec)
    else:
        g.disruption_mode = _disruption_mode(spec.get("disruptionMode"), join_pointer(sp, "disruptionMode"), ident)
        g.priority_class = r.string(spec, "priorityClassName", sp, ident)
        g.priority = r.integer(spec, "priority", sp, ident)
        g.preemption_policy = r.string(spec, "preemptionPolicy", sp, ident)
        g.min_member = -1  # filled from the Workload template at build time
    d.groups.append(g)


def apply_template(g: GroupDraft, t: WorkloadTemplate, explicit: dict | None = None) -> None:
    g.basic = t.min_count is None
    g.min_member = t.min_count or 1
    g.disruption_mode = t.disruption_mode
    g.priority_class = t.priority_class
    g.priority = t.priority
    g.preemption_policy = t.preemption_policy
    if t.topology_key:
        g.network_topology = NetworkTopology(mode="hard", highest_tier_name=t.topology_key)


# Dispatch --------------------------------------------------------------------------------
def read_vcjob(o: dict, ptr: str, d: Draft) -> None:
    """A Volcano ``Job`` (``app.ingest.vcjob``, which reads with this module's readers:
    imported when used)."""
    from app.ingest.vcjob import read_vcjob as read

    read(o, ptr, d)


def realize_vcjobs(d: Draft, objects: Any, read: int, max_objects: int, hold: bool, scheduler: str, now: float) -> None:
    """Volcano's Job controller on the Jobs read, once every object and native record is
    (``app.ingest.vcjob``; the native pods held in blocks are turned into records first,
    for it to see them)."""
    if d.vcjobs:
        from app.ingest.vcjob import realize_vcjobs as realize

        d.realize_blocks()
        realize(d, objects, read, max_objects, hold, scheduler, now)


Reader = Callable[[dict, str, Draft], None]

#: Owner kinds whose annotations Volcano's PodGroup controller reads (``app.ingest.pgcontroller``)
OWNER_KINDS = frozenset({("apps", "ReplicaSet"), ("apps", "DaemonSet"), ("apps", "StatefulSet"), ("batch", "Job")})

READERS: dict[tuple[str, str], Reader] = {
    ("", "Node"): read_node,
    ("", "Pod"): read_pod,
    ("", "ConfigMap"): read_configmap,
    ("", "Namespace"): read_namespace,
    ("scheduling.k8s.io", "PriorityClass"): read_priority_class,
    ("policy", "PodDisruptionBudget"): read_pdb,
    ("", "ResourceQuota"): read_resource_quota,
    ("scheduling.volcano.sh", "PodGroup"): read_volcano_podgroup,
    ("scheduling.volcano.sh", "Queue"): read_volcano_queue,
    ("topology.volcano.sh", "HyperNode"): read_hypernode,
    ("shard.volcano.sh", "NodeShard"): read_node_shard,
    ("nodeinfo.volcano.sh", "Numatopology"): read_numatopology,
    ("scheduling.run.ai", "Queue"): read_kai_queue,
    ("scheduling.run.ai", "PodGroup"): read_kai_podgroup,
    ("scheduling.run.ai", "BindRequest"): read_kai_bind_request,
    ("kai.scheduler", "Topology"): read_level_topology("kai"),
    ("kueue.x-k8s.io", "Topology"): read_level_topology("kueue"),
    ("scheduling.x-k8s.io", "PodGroup"): read_sigs_podgroup,
    ("scheduling.sigs.k8s.io", "PodGroup"): read_sigs_podgroup,  # coscheduling v1alpha1, Koordinator's docs
    ("scheduling.k8s.io", "Workload"): read_workload,
    ("scheduling.k8s.io", "PodGroup"): read_workload_podgroup,
    ("resource.k8s.io", "DeviceClass"): read_device_class,
    ("resource.k8s.io", "ResourceSlice"): read_resource_slice,
    ("resource.k8s.io", "ResourceClaim"): read_resource_claim,
    ("resource.k8s.io", "ResourceClaimTemplate"): read_resource_claim_template,
    ("batch.volcano.sh", "Job"): read_vcjob,
}


def api_group(api_version: str) -> str:
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def _list_kind(kind: Any) -> bool:
    """``kind`` names a list: ``List``, or ``<Kind>List`` (which counts only with ``items``)."""
    return kind == "List" or (isinstance(kind, str) and kind.endswith("List"))


def _is_list(v: dict) -> bool:
    kind = v.get("kind")
    return _list_kind(kind) and (kind == "List" or "items" in v)


def flatten(objects: Any, ptr: str, max_objects: int) -> list[tuple[dict, str]]:
    """``objects`` may be a list, a ``List``, or lists of Lists; yield (object, pointer)."""
    out: list[tuple[dict, str]] = []
    stack: list[tuple[Any, str]] = [(objects, ptr)]

    def expand(seq: list, base: str) -> None:
        """Visit ``seq`` next, in order (``base``: its pointer plus "/"; ``p`` is already a
        pointer, indices need no escaping). A run of plain objects, none of them a List,
        is taken in one step, as visiting them one by one would."""
        if set(map(type, seq)) == {dict}:
            try:
                kinds = set(map(dict.get, seq, repeat("kind")))
            except TypeError:  # a kind that is not a string: visited one at a time (the reader says why)
                kinds = {"List"}
            if not any(map(_list_kind, kinds)):
                room = max_objects - len(out)
                if len(seq) > room:
                    raise LimitError(
                        f"more than {max_objects} objects (limit GANGPLANK_MAX_OBJECTS)", f"{base}{room}", kind="too-many-objects"
                    )
                out.extend(zip(seq, [f"{base}{i}" for i in range(len(seq))], strict=True))
                return
        stack.extend(zip(reversed(seq), [f"{base}{i}" for i in range(len(seq) - 1, -1, -1)], strict=True))

    while stack:
        v, p = stack.pop()
        if isinstance(v, dict) and _is_list(v):
            items = v.get("items")
            if items is None:
                continue
            if not isinstance(items, list):
                raise InputError("'items' of a List must be an array", join_pointer(p, "items"))
            expand(items, p + "/items/")
        elif isinstance(v, list):
            expand(v, p + "/")
        elif isinstance(v, dict):
            out.append((v, p))
            if len(out) > max_objects:
                raise LimitError(
                    f"more than {max_objects} objects (limit GANGPLANK_MAX_OBJECTS)", p, kind="too-many-objects"
                )
        else:
            raise InputError(f"an object was expected, not {r.type_name(v)}", p)
    return out


class KubeObjects(list):  # type: ignore[type-arg]
    """The ``objects`` of a JSON body read from its text (:func:`decode_objects`): in
    ``flatten``'s order, each the :class:`PodDraft` of a pod ``read_objects`` would have
    read in C, the :class:`NodeDraft` ``read_node`` would make of a node in the common
    shape, or ``(start, end, pointer)``: an object whose JSON is ``text[start:end]``."""

    def __init__(self, entries: list[Any], text: memoryview, body: bytes) -> None:
        super().__init__(entries)
        self.text = text
        self.body = body  # the whole request (for orjson's own error, should an object's text be refused)


_OBJECTS_KEYS = tuple(k for k in fastjson.ENVELOPE_KEYS if k != "cluster")
_ObjectsEnvelope = msgspec.defstruct(
    "_ObjectsEnvelope", [(k, msgspec.Raw, msgspec.Raw(b"")) for k in _OBJECTS_KEYS], forbid_unknown_fields=True, gc=False
)
_OBJECTS_DECODER = msgspec.json.Decoder(_ObjectsEnvelope)
_kube_objects = compiled("kube_objects")


def _node_allocatable(value: Any) -> dict[str, int] | None:
    """``read_node``'s allocatable map of ``value`` (a node's ``status.allocatable`` as
    orjson reads it), or None where ``read_node`` raises (that node is left to it, to say
    where): the text reader converts each distinct allocatable text once with this."""
    try:
        return quantity_map(value, "", None)
    except InputError:
        return None


def _kube_node_kernel() -> bool:
    setup = compiled("kube_node_setup")
    return setup is not None and bool(setup(NodeDraft, tuple(f.name for f in fields(NodeDraft)), _node_allocatable))


#: Whether ``kube_objects`` reads nodes in the common shape too (their drafts, as ``read_node``).
_NODES_IN_C = _kube_node_kernel()


def decode_objects(raw: bytes, settings: Any) -> dict[str, Any] | None:
    """The envelope of a JSON body of Kubernetes objects with its ``objects`` as
    :class:`KubeObjects`: the pods and nodes in the common shape read straight from the
    text into drafts (``kube_objects`` in C; no dict tree is built for them), every other object
    left as its text. For ``/v1/decisions`` (``read_objects`` takes it). None for anything
    else or in doubt (no C kernels, a ``cluster`` section, a body orjson might read
    otherwise: see ``kube_objects``), and the body is parsed by orjson. msgspec checks the
    JSON of the whole body first (its grammar; the UTF-8 is checked as for native bodies,
    and the numbers and escapes orjson refuses by the C reader). A native body stops it at
    its ``cluster`` key, an unknown field here (no scan of the body for the key: a search
    for ``"objects"`` in 10 MB of JSON took 8 ms, every quote a candidate). The native
    pass's one documented difference (``fastjson``'s docstring) holds here too: a number
    too large for a double in a top-level value that a repeated key replaces (say
    ``{"objects": 1e400, "objects": [...]}``) is refused by orjson and dropped unseen here,
    where msgspec keeps the last value."""
    if _kube_objects is None or _pod_fast_c is None:
        return None
    if not fastjson.NESTING_FOLLOWS_RECURSION_LIMIT or sys.getrecursionlimit() > fastjson.MAX_DEPTH:
        return None
    try:
        env = _OBJECTS_DECODER.decode(raw)
        if not env.objects or not fastjson.utf8_valid(raw):
            return None
        text = memoryview(env.objects)  # (the body's own bytes: entries point into them)
        entries = _kube_objects(text, settings.max_objects, MetaLimits.of(settings).quick(), orjson.loads)
        if entries is None:
            return None
        out = {k: orjson.loads(memoryview(v)) for k in _OBJECTS_KEYS if k != "objects" and (v := getattr(env, k))}
    except Exception:  # noqa: BLE001 - any doubt (malformed JSON, a type, a value, depth): orjson decides
        return None
    out["objects"] = KubeObjects(entries, text, raw)
    return out


def read_objects(objects: Any, ptr: str, d: Draft, *, max_objects: int, limits: MetaLimits = DEFAULT_LIMITS) -> int:
    """Returns how many objects were read (Volcano Jobs' controller, :func:`realize_vcjobs`,
    runs once the request's native section is read too, and counts its pods on top)."""
    groups: dict[str, str] = {}  # apiVersion -> API group, per request
    if type(objects) is KubeObjects:
        _read_entries(objects, d, groups, limits)
        return len(objects)
    objs = flatten(objects, ptr, max_objects)
    run = _pods_run if _pod_fast_c is not None else None
    quick = limits.quick()
    i, n = 0, len(objs)
    while i < n:
        if run is not None:  # a run of pods on nodes in the common shape: this loop in C
            i = run(objs, i, d.pods, quick)
            if i == n:
                break
        _read_one(objs[i][0], objs[i][1], d, groups, limits)
        i += 1
    return n


def _read_one(o: dict, p: str, d: Draft, groups: dict[str, str], limits: MetaLimits) -> None:
    """One object of ``read_objects`` (``groups``: apiVersion -> API group, per request)."""
    api_version = o.get("apiVersion")
    kind = o.get("kind")
    if not isinstance(api_version, str) or not api_version:
        raise InputError("every object needs a string 'apiVersion'", join_pointer(p, "apiVersion"))
    if not isinstance(kind, str) or not kind:
        raise InputError("every object needs a string 'kind'", join_pointer(p, "kind"))
    group = groups.get(api_version)
    if group is None:
        group = groups[api_version] = api_group(api_version)
    reader = READERS.get((group, kind))
    if reader is None:
        label = f"{api_version} {kind}"
        d.ignored[label] = d.ignored.get(label, 0) + 1
        d.unread_objects.append((label, o, p))  # (KAI's pod-grouper, Volcano's PodGroup controller may read it)
        return
    check_object(o, p, limits)
    reader(o, p, d)


def _read_entries(entries: KubeObjects, d: Draft, groups: dict[str, str], limits: MetaLimits) -> None:
    """``read_objects`` for objects read from the text: the pods' and nodes' drafts as they
    are, each other object parsed by orjson and read as ``read_objects`` reads it."""
    text, pods, draft, nodes = entries.text, d.pods, PodDraft, d.nodes
    for e in entries:
        if type(e) is draft:
            pods.append(e)
        elif type(e) is NodeDraft:
            nodes.append(e)
        else:
            start, end, p = e
            try:
                o = orjson.loads(text[start:end])
            except orjson.JSONDecodeError:  # the reader let through what orjson refuses: orjson's answer for the body
                parse_json(entries.body)
                raise InputError("the object is not valid JSON", p, kind="malformed-body", status=400) from None
            _read_one(o, p, d, groups, limits)
