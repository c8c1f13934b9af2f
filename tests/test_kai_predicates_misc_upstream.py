"""KAI-Scheduler's pre-filter predicates of the predicates plugin that look at the whole
cluster rather than one node: the ConfigMap predicate and the max-node-resources predicate,
transcribed row by row as decisions of the ``kai`` profile.

Sources (NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092):

* ``pkg/scheduler/k8s_internal/predicates/config_maps_test.go`` — ``TestIsPreFilterRequired``,
  ``TestPreFilter``, ``TestPreFilterOptionalConfigMapVolumes``,
  ``TestPreFilterOptionalConfigMapProjectedVolumes``, ``TestPreFilterOptionalConfigMapEnvVars``,
  ``TestPreFilterOptionalConfigMapEphemeralEnvVars``, against ``config_maps.go``;
* ``pkg/scheduler/k8s_internal/predicates/maxNodeResources_test.go`` —
  ``Test_podToMaxNodeResourcesFiltering``, ``TestMaxNodeResourcesPredicateDRA``, against
  ``maxNodeResources.go``.

How KAI uses them
-----------------

``predicates.go`` ``NewSessionPredicates`` (``k8s_internal/predicates/predicates.go:146-162``)
builds both for every session, unconditionally: ``NewMaxNodeResourcesPredicate(ssn.ClusterInfo.Nodes,
ssn.ClusterInfo.ResourceClaims, ssn.NodePoolName())`` and ``NewConfigMapPredicate(ssn.ClusterInfo.ConfigMaps)``
(every ConfigMap the data lister lists, ``cluster_info.go:485``). They are PreFilters: the
predicates plugin runs them once per pod (``evaluateTaskOnPrePredicate``) and a failure makes
the pod fit no node (``Unschedulable``), so its job is not allocated.

* ConfigMap: the pod needs every ConfigMap it references, not ``optional``, from a volume some
  container (init, regular or ephemeral) mounts (a ``configMap`` volume or a ``projected``
  volume's ``configMap`` sources), or from an ``env[].valueFrom.configMapKeyRef`` /
  ``envFrom[].configMapRef`` of any container, except names starting with the pod's
  ``runai/shared-gpu-configmap`` annotation (GPU sharing's own ConfigMaps, made after binding).
  A missing one (no ConfigMap of that name in the pod's namespace) refuses the pod.
* Max node resources: the pod's request (GPUs, whole or fractional, plus its DRA claims' GPUs;
  CPU; memory; every scalar resource, ``pods`` included) above the largest of that resource
  over the nodes' allocatable (each resource maximised separately) refuses the pod.

How the rows become decisions
-----------------------------

Each Go pod becomes a pod of its own KAI PodGroup ``pg`` in a KAI Queue ``q`` (unlimited),
posted to ``/v1/decisions`` with ``{"profile": "kai", "actions": "allocate"}``. A row whose
PreFilter passes must bind the pod; one whose PreFilter fails must leave it unbound.

* ConfigMap rows: one node of ample capacity (64 CPUs, 512Gi), the pod asks 1 CPU and 1Gi, in
  namespace ``test`` as the Go pods are (``TestIsPreFilterRequired``'s pods have no namespace:
  ``test`` here too, with no ConfigMaps, as ``NewConfigMapPredicate(nil)`` has none). The Go
  pod's container fields (``volumeMounts``, ``env``, ``envFrom``) go on the pod's one container,
  its ``volumes``, ``ephemeralContainers`` and annotations on the pod; the Go test's ConfigMaps
  are ``v1`` ConfigMap objects of the snapshot. A ``TestIsPreFilterRequired`` row that requires the
  PreFilter, with no ConfigMaps, is refused (every name it requires is missing); one that does
  not is bound.
* Max-node-resources rows: the Go nodes (their allocatable, ``pods`` 110) and pod; the pod is
  given the PodGroup annotation (a Go pod without one is the same request). For a refused row a
  second decision shows the bound is the *maximum over nodes*: the same pod asking exactly the
  largest node's amount of the resource is bound (to that node). DRA rows: the Go nodes'
  ResourceSlices (driver ``nvidia.com/gpu``, one device each), a ``DeviceClass``
  ``nvidia.com/gpu`` (KAI's DRA plugin needs the class the claim names; the Go unit test calls the
  predicate alone) and the Go claim, labelled ``kai.scheduler/queue: q`` (KAI's ``dynamicresources``
  PreFilter refuses a GPU claim the pod names without its job's queue label).

Two more tests show the ConfigMap rule in preempt (``{"profile": "kai", "actions": "allocate,
preempt"}``): a ``build`` job's pod that takes ``envFrom`` a ConfigMap preempts a ``train`` job filling
the node when the ConfigMap exists, and evicts nothing when it is missing (KAI's simulation cannot
place a pod its PreFilter refuses, so no scenario is committed).

Gangplank applies the ConfigMap predicate where the snapshot lists ConfigMaps (``app/kai/configmaps.py``:
a snapshot without any ConfigMap is taken as one that does not list them, since every real pod
mounts its namespace's ``kube-root-ca.crt``). So each row's snapshot also holds an unrelated
ConfigMap of another namespace (``kube-system/kube-root-ca.crt``, :data:`LISTED`), which changes
nothing for KAI; one more test shows a snapshot without any ConfigMap.

Not transcribed
---------------

* The exact ``Unschedulable`` messages of ``Test_podToMaxNodeResourcesFiltering`` /
  ``TestMaxNodeResourcesPredicateDRA`` ("The pod n1/name1 requires ... topped at 0.5 cores") and
  the missing names of ``TestPreFilter``: KAI's fit-error texts; Gangplank's job message is its
  own ("... cannot all be placed"), so only the refusal is compared.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.kube import node, pod, post_decision

KAI = {"profile": "kai", "actions": "allocate"}
NS = "test"
QUEUE = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"},
         "spec": {"resources": {"gpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                                "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                                "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}}}}  # fmt: skip
SHARED_GPU_CM = "runai/shared-gpu-configmap"  # config_maps.go sharedGPUConfigMapAnnotation


def podgroup(ns: str = NS) -> dict[str, Any]:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": "pg", "namespace": ns},
            "spec": {"minMember": 1, "queue": "q"}}  # fmt: skip


def bound(out: dict[str, Any], name: str, ns: str = NS) -> str | None:
    """The node the pod was bound to, else None (a nomination counts as not placed here:
    these clusters have nothing releasing)."""
    return next((b["node"] for b in out["bindings"] if b["pod"] == f"{ns}/{name}"), None)


# ==========================================================================================
# config_maps_test.go
# ==========================================================================================
def configmap(name: str, ns: str = NS) -> dict[str, Any]:
    """A ``configmap_info.ConfigMapInfo{Namespace, Name}`` as the ConfigMap it is read from."""
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns, "uid": f"cm-{ns}-{name}"}}


#: an unrelated ConfigMap of another namespace: the snapshot lists ConfigMaps (see the module docstring)
LISTED = configmap("kube-root-ca.crt", "kube-system")


def cm_volume(volume: str, cm: str = "", optional: bool | None = None) -> dict[str, Any]:
    src: dict[str, Any] = {"name": cm}
    if optional is not None:
        src["optional"] = optional
    return {"name": volume, "configMap": src}


def projected(volume: str, *sources: tuple[str, bool | None]) -> dict[str, Any]:
    out = []
    for cm, optional in sources:
        src: dict[str, Any] = {"name": cm}
        if optional is not None:
            src["optional"] = optional
        out.append({"configMap": src})
    return {"name": volume, "projected": {"sources": out}}


def empty_dir(volume: str) -> dict[str, Any]:
    return {"name": volume, "emptyDir": {}}


def env_ref(cm: str, optional: bool | None = None, var: str = "VAR") -> dict[str, Any]:
    ref: dict[str, Any] = {"name": cm, "key": "key"}
    if optional is not None:
        ref["optional"] = optional
    return {"name": var, "valueFrom": {"configMapKeyRef": ref}}


def env_from(cm: str, optional: bool | None = None) -> dict[str, Any]:
    ref: dict[str, Any] = {"name": cm}
    if optional is not None:
        ref["optional"] = optional
    return {"configMapRef": ref}


def go_pod(container: dict | None = None, *, volumes: list | None = None, ephemeral: dict | None = None,
           annotations: dict | None = None) -> dict[str, Any]:  # fmt: skip
    """A Go test pod: ``container`` (volumeMounts / env / envFrom) merged into the pod's one
    container, ``volumes``, one ephemeral container with ``ephemeral``'s fields, annotations."""
    p = pod("p", ns=NS, cpu="1", memory="1Gi", annotations={"pod-group-name": "pg", **(annotations or {})})
    p["spec"]["containers"][0].update(container or {})
    if volumes:
        p["spec"]["volumes"] = volumes
    if ephemeral is not None:
        p["spec"]["ephemeralContainers"] = [{"name": "debug", "image": "x", **ephemeral}]
    return p


def mounts(*names: str) -> dict[str, Any]:
    return {"volumeMounts": [{"name": n, "mountPath": f"/mnt/{n}"} for n in names]}


#: (Go test / row, the pod, the ConfigMaps of the snapshot (names in ``test``), whether Go's PreFilter
#: refuses the pod). TestIsPreFilterRequired's rows have no ConfigMaps: required means refused.
CM_ROWS: list[tuple[str, dict[str, Any], list[str], bool]] = [
    ("TestIsPreFilterRequired/Empty spec", go_pod(), [], False),
    ("TestIsPreFilterRequired/ConfigMap volume", go_pod(mounts("bla"), volumes=[cm_volume("bla")]), [], True),
    ("TestIsPreFilterRequired/Unreferenced configMap volume", go_pod(volumes=[cm_volume("bla")]), [], False),
    ("TestIsPreFilterRequired/Unreferenced configMap and referenced configmap",
     go_pod(mounts("bla-referenced"), volumes=[cm_volume("bla"), cm_volume("bla-referenced")]), [], True),
    ("TestIsPreFilterRequired/non-ConfigMap volume", go_pod(volumes=[empty_dir("bla")]), [], False),
    ("TestIsPreFilterRequired/Referenced ConfigMap and non-configmap volume",
     go_pod(mounts("bla-configmap"), volumes=[empty_dir("bla"), cm_volume("bla-configmap")]), [], True),
    ("TestIsPreFilterRequired/non-referenced ConfigMap and non-configmap volume",
     go_pod(volumes=[empty_dir("bla"), cm_volume("bla-configmap")]), [], False),
    ("TestIsPreFilterRequired/env var", go_pod({"env": [env_ref("bla", var="")]}), [], True),
    ("TestIsPreFilterRequired/env from", go_pod({"envFrom": [env_from("bla")]}), [], True),
    ("TestIsPreFilterRequired/non-referenced configmap volume, env var",
     go_pod({"env": [env_ref("bla", var="")]}, volumes=[empty_dir("bla")]), [], True),
    ("TestPreFilter/no configmaps, no required configmaps", go_pod(), [], False),
    ("TestPreFilter/no configmaps, required configmaps", go_pod(mounts("bla"), volumes=[cm_volume("bla")]), [], True),
    ("TestPreFilter/no configmaps, non-referenced configmaps", go_pod(volumes=[cm_volume("bla")]), [], False),
    ("TestPreFilter/yes configmaps, required configmaps",
     go_pod(mounts("bla"), volumes=[cm_volume("bla", "bla")]), ["bla"], False),
    ("TestPreFilter/yes configmaps, required configmaps, different name",
     go_pod(mounts("volume-name"), volumes=[cm_volume("volume-name", "configmap-name")]), ["configmap-name"], False),
    ("TestPreFilter/some configmaps, required configmaps",
     go_pod(mounts("bla", "blu"), volumes=[cm_volume("bla", "bla"), cm_volume("blu", "blu")]), ["bla"], True),
    ("TestPreFilter/no configmap, unused configmap", go_pod(volumes=[cm_volume("bla", "bla")]), [], False),
    ("TestPreFilter/one configmap, required configmap, unused configmap",
     go_pod(volumes=[cm_volume("bla", "bla")]), [], False),
    ("TestPreFilter/shared gpu configmaps",
     go_pod({"env": [env_ref("shared-gpu-configmap-0", var="NVIDIA_VISIBLE_DEVICES")],
             "envFrom": [env_from("shared-gpu-configmap-evar-0")],
             **mounts("shared-gpu-configmap-vol", "shared-gpu-configmap-evar-vol")},
            volumes=[cm_volume("shared-gpu-configmap-vol", "shared-gpu-configmap-0"),
                     cm_volume("shared-gpu-configmap-evar-vol", "shared-gpu-configmap-evar-0")],
            annotations={SHARED_GPU_CM: "shared-gpu-configmap"}), [], False),
    ("TestPreFilter/env var referenced configmaps",
     go_pod({"env": [env_ref("cm-name", var="NVIDIA_VISIBLE_DEVICES")], "envFrom": [env_from("cm-name2")],
             **mounts("cm-name-vol", "cm-name-evar-vol")},
            volumes=[cm_volume("cm-name-vol", "cm-name-0"), cm_volume("cm-name-evar-vol", "cm-name-evar-0")],
            annotations={SHARED_GPU_CM: "shared-gpu-configmap"}), [], True),
    ("TestPreFilterOptionalConfigMapVolumes/optional configmap volume, missing",
     go_pod(mounts("optional-cm"), volumes=[cm_volume("optional-cm", "optional-cm", True)]), [], False),
    ("TestPreFilterOptionalConfigMapVolumes/required configmap volume (Optional=false), missing",
     go_pod(mounts("required-cm"), volumes=[cm_volume("required-cm", "required-cm", False)]), [], True),
    ("TestPreFilterOptionalConfigMapVolumes/mixed optional and required volumes, required missing",
     go_pod(mounts("optional-cm", "required-cm"),
            volumes=[cm_volume("optional-cm", "optional-cm", True), cm_volume("required-cm", "required-cm", False)]),
     [], True),
    ("TestPreFilterOptionalConfigMapVolumes/projected configmap volume not mounted",
     go_pod(volumes=[projected("projected-cm", ("required-cm", None))]), [], False),
    ("TestPreFilterOptionalConfigMapProjectedVolumes/optional projected configmap volume, missing",
     go_pod(mounts("projected-cm"), volumes=[projected("projected-cm", ("optional-cm", True))]), [], False),
    ("TestPreFilterOptionalConfigMapProjectedVolumes/required projected configmap volume, missing",
     go_pod(mounts("projected-cm"), volumes=[projected("projected-cm", ("required-cm", False))]), [], True),
    ("TestPreFilterOptionalConfigMapProjectedVolumes/projected volume with mixed configmaps, required missing",
     go_pod(mounts("projected-cm"), volumes=[projected("projected-cm", ("optional-cm", True), ("required-cm", False))]),
     [], True),
    ("TestPreFilterOptionalConfigMapEnvVars/optional configmap env var, missing",
     go_pod({"env": [env_ref("optional-cm", True)]}), [], False),
    ("TestPreFilterOptionalConfigMapEnvVars/required configmap env var (Optional=false), missing",
     go_pod({"env": [env_ref("required-cm", False)]}), [], True),
    ("TestPreFilterOptionalConfigMapEnvVars/optional configmap envFrom, missing",
     go_pod({"envFrom": [env_from("optional-cm", True)]}), [], False),
    ("TestPreFilterOptionalConfigMapEnvVars/required configmap envFrom (Optional=false), missing",
     go_pod({"envFrom": [env_from("required-cm", False)]}), [], True),
    ("TestPreFilterOptionalConfigMapEphemeralEnvVars/optional configmap env var in ephemeral container, missing",
     go_pod(ephemeral={"env": [env_ref("optional-cm", True)]}), [], False),
    ("TestPreFilterOptionalConfigMapEphemeralEnvVars/required configmap env var in ephemeral container, missing",
     go_pod(ephemeral={"env": [env_ref("required-cm", False)]}), [], True),
    ("TestPreFilterOptionalConfigMapEphemeralEnvVars/optional configmap envFrom in ephemeral container, missing",
     go_pod(ephemeral={"envFrom": [env_from("optional-cm", True)]}), [], False),
    ("TestPreFilterOptionalConfigMapEphemeralEnvVars/required configmap envFrom in ephemeral container, missing",
     go_pod(ephemeral={"envFrom": [env_from("required-cm", False)]}), [], True),
]  # fmt: skip


def _cm_params() -> list[Any]:
    return [pytest.param(p, cms, refused, id=name) for name, p, cms, refused in CM_ROWS]


@pytest.mark.parametrize(("the_pod", "configmaps", "refused"), _cm_params())
def test_a_pod_is_refused_when_a_configmap_it_requires_is_missing(client: Any, the_pod: dict[str, Any],
                                                                   configmaps: list[str], refused: bool) -> None:  # fmt: skip
    """config_maps_test.go, the row named by the id (``TestIsPreFilterRequired``, ``TestPreFilter``,
    ``TestPreFilterOptionalConfigMap*``): KAI's ConfigMap PreFilter (``config_maps.go``
    ``getAllRequiredConfigMapNames`` / ``PreFilter``) refuses a pod referencing a ConfigMap of its
    namespace the snapshot lacks — from a volume some container mounts (a ``configMap`` volume or a
    ``projected`` volume's source), or from any container's ``env`` ``configMapKeyRef`` / ``envFrom``
    ``configMapRef`` (ephemeral containers included) — unless the reference is ``optional`` or the
    name starts with the pod's ``runai/shared-gpu-configmap`` annotation. Refused: the pod is not
    bound; otherwise it is bound on the one node."""
    objs = [QUEUE, node("n1"), podgroup(), copy.deepcopy(the_pod), LISTED, *(configmap(c) for c in configmaps)]
    out = post_decision(objs, KAI, client=client)
    assert (bound(out, "p") is None) is refused


def test_a_snapshot_without_any_configmap_is_not_checked(client: Any) -> None:
    """Gangplank's reading of a snapshot (not KAI's rule): one holding no ConfigMap at all does
    not list them (every real pod mounts its namespace's ``kube-root-ca.crt``), so the
    predicate is not applied and the pod whose required ConfigMap would be missing is bound;
    with any ConfigMap listed, it is refused (the rows above)."""
    p = go_pod(mounts("bla"), volumes=[cm_volume("bla", "bla")])
    assert bound(post_decision([QUEUE, node("n1"), podgroup(), p], KAI, client=client), "p") == "n1"
    assert bound(post_decision([QUEUE, node("n1"), podgroup(), p, LISTED], KAI, client=client), "p") is None


def test_a_configmap_of_another_namespace_leaves_the_pod_refused(client: Any) -> None:
    """config_maps.go ``configMapExists`` (``configMapsNames[namespace][name]``): the required
    ConfigMap ``bla`` exists only in namespace ``other``, so for the pod of ``test`` it is missing
    and KAI's PreFilter refuses the pod (not bound)."""
    p = go_pod(mounts("bla"), volumes=[cm_volume("bla", "bla")])
    out = post_decision([QUEUE, node("n1"), podgroup(), p, configmap("bla", "other")], KAI, client=client)
    assert bound(out, "p") is None


# ==========================================================================================
# maxNodeResources_test.go Test_podToMaxNodeResourcesFiltering
# ==========================================================================================
def mnr_node(name: str, cpu: str, memory: str, gpu: str, extra: dict[str, str] | None = None) -> dict[str, Any]:
    """A Go ``NodeInfo`` of the test: allocatable = the list (``kai.scheduler/r1: 2``, pods 110)."""
    n = node(name, cpu=cpu, memory=memory, gpu=None)
    n["status"]["allocatable"] = {"cpu": cpu, "memory": memory, "nvidia.com/gpu": gpu, "kai.scheduler/r1": "2",
                                  "pods": "110", **(extra or {})}  # fmt: skip
    n["status"]["capacity"] = n["status"]["allocatable"]
    return n


def mnr_pod(requests: dict[str, str], annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """The Go pod ``n1/name1``: one container asking ``requests`` (nothing else), in PodGroup pg."""
    p = pod("name1", ns="n1", cpu=None, memory=None, annotations={"pod-group-name": "pg", **(annotations or {})})
    p["spec"]["containers"][0]["resources"]["requests"] = dict(requests)
    return p


N1 = ("n1", "100m", "200Mi", "1")
N2 = ("n2", "500m", "200Mi", "1")
#: (row, nodes, the pod's requests / annotations, refused, the request of the pod asking the largest node's
#: amount (None: the row is not refused) and that node)
MNR_ROWS = [
    ("small pod", [N1], ({"cpu": "20m"}, None), False, None),
    ("not enough cpu", [N1, N2], ({"cpu": "1"}, None), True, (({"cpu": "500m"}, None), "n2")),
    ("not enough memory", [("n1", "100m", "400Mi", "1"), N2], ({"memory": "1G"}, None), True,
     (({"memory": "400Mi"}, None), "n1")),
    ("not enough whole gpus", [N1, N2], ({"nvidia.com/gpu": "2"}, None), True, None),
    ("not enough fraction gpu", [("n1", "100m", "200Mi", "0"), ("n2", "500m", "200Mi", "0")],
     ({}, {"gpu-fraction": "0.5"}), True, None),
    ("not enough ephemeral storage", [("n1", "100m", "200Mi", "1", {"ephemeral-storage": "10Gi"}),
                                      ("n2", "500m", "200Mi", "1", {"ephemeral-storage": "20Gi"})],
     ({"ephemeral-storage": "25G"}, None), True, (({"ephemeral-storage": "20Gi"}, None), "n2")),
]  # fmt: skip


@pytest.mark.parametrize(("nodes", "request_", "refused", "at_max"),
                         [pytest.param(n, r, x, m, id=f"Test_podToMaxNodeResourcesFiltering/{name}")
                          for name, n, r, x, m in MNR_ROWS])  # fmt: skip
def test_a_pod_asking_more_than_the_largest_node_has_is_refused(client: Any, nodes: list, request_: tuple,
                                                                refused: bool, at_max: tuple | None) -> None:  # fmt: skip
    """maxNodeResources_test.go Test_podToMaxNodeResourcesFiltering, the row named by the id:
    KAI's MaxNodeResources PreFilter (``maxNodeResources.go`` ``PreFilter``) refuses a pod whose
    GPUs (whole or ``gpu-fraction``), CPU, memory or a scalar resource (``ephemeral-storage``)
    exceed the largest allocatable of that resource over the nodes, each resource maximised
    separately (``SetMaxResource``); "small pod" passes and is bound. For a refused row with
    a node of that resource, the pod asking exactly the largest node's amount is bound on that
    node, as the PreFilter lets it through (n1's 100m CPU or n2's 200Mi memory do not stop it)."""
    objs = [QUEUE, *(mnr_node(*n) for n in nodes), podgroup("n1")]
    out = post_decision([*objs, mnr_pod(*request_)], KAI, client=client)
    assert (bound(out, "name1", "n1") is None) is refused
    if at_max is not None:
        req, where = at_max
        out = post_decision([*objs, mnr_pod(*req)], KAI, client=client)
        assert bound(out, "name1", "n1") == where


@pytest.mark.parametrize(("requests", "refused"), [
    pytest.param({"kai.scheduler/r2": "1"}, True, id="a scalar resource no node has"),
    pytest.param({"kai.scheduler/r1": "3"}, True, id="more of a scalar resource than any node has"),
    pytest.param({"kai.scheduler/r1": "2"}, False, id="as much of a scalar resource as the largest node has"),
])  # fmt: skip
def test_a_pod_asking_a_scalar_resource_beyond_every_node_is_refused(client: Any, requests: dict[str, str],
                                                                     refused: bool) -> None:  # fmt: skip
    """maxNodeResources.go ``PreFilter``'s scalar loop (the code under Test_podToMaxNodeResourcesFiltering,
    whose "not enough ephemeral storage" row takes its second branch): a scalar resource of the pod's
    request refuses it when no node's allocatable has that resource at all (``!found``) or when the
    pod asks more than the largest node has; asking exactly the largest amount passes and the pod is
    bound. The Go nodes n1 and n2 (``kai.scheduler/r1: 2`` each)."""
    objs = [QUEUE, mnr_node(*N1), mnr_node(*N2), podgroup("n1"), mnr_pod(requests)]
    out = post_decision(objs, KAI, client=client)
    assert (bound(out, "name1", "n1") is None) is refused


# ==========================================================================================
# maxNodeResources_test.go TestMaxNodeResourcesPredicateDRA
# ==========================================================================================
DRA = "resource.k8s.io/v1"


def dra_objects(count: int) -> list[dict[str, Any]]:
    """``buildNodesFromResourceSlices``: nodes n1 (100m) and n2 (500m), 200Mi, ``kai.scheduler/r1: 2``,
    pods 110, no ``nvidia.com/gpu``; ``makeDRAResourceSlice``: one ``nvidia.com/gpu`` device per node;
    the claim ``n1/gpu-claim-<count>`` asking ``count`` devices of class ``nvidia.com/gpu`` (with the queue
    label KAI's DRA PreFilter asks of a GPU claim); its pod
    ``n1/name1`` with no container requests."""
    objs: list[dict[str, Any]] = [QUEUE, podgroup("n1"),
                                  {"apiVersion": DRA, "kind": "DeviceClass", "metadata": {"name": "nvidia.com/gpu"},
                                   "spec": {}}]  # fmt: skip
    for name, cpu in (("n1", "100m"), ("n2", "500m")):
        n = node(name, cpu=cpu, memory="200Mi", gpu=None)
        n["status"]["allocatable"]["kai.scheduler/r1"] = "2"
        objs.append(n)
        objs.append({"apiVersion": DRA, "kind": "ResourceSlice", "metadata": {"name": f"slice-{name}"},
                     "spec": {"nodeName": name, "driver": "nvidia.com/gpu",
                              "pool": {"name": name, "generation": 0, "resourceSliceCount": 1},
                              "devices": [{"name": f"slice-{name}-device-0"}]}})  # fmt: skip
    claim = f"gpu-claim-{count}"
    objs.append({"apiVersion": DRA, "kind": "ResourceClaim", "metadata": {"name": claim, "namespace": "n1",
                                                                          "labels": {"kai.scheduler/queue": "q"}},
                 "spec": {"devices": {"requests": [{"name": "gpu-req", "exactly": {
                     "deviceClassName": "nvidia.com/gpu", "allocationMode": "ExactCount", "count": count}}]}}})  # fmt: skip
    p = mnr_pod({})
    p["spec"]["resourceClaims"] = [{"name": "gpu-claim", "resourceClaimName": claim}]
    objs.append(p)
    return objs


@pytest.mark.parametrize(("count", "refused"), [
    pytest.param(1, False, id="TestMaxNodeResourcesPredicateDRA/DRA claim within max node resources"),
    pytest.param(2, True, id="TestMaxNodeResourcesPredicateDRA/DRA claim exceeds max node resources"),
])  # fmt: skip
def test_a_pod_whose_dra_claim_asks_more_gpus_than_any_node_has_is_refused(client: Any, count: int,
                                                                           refused: bool) -> None:  # fmt: skip
    """maxNodeResources_test.go TestMaxNodeResourcesPredicateDRA, the row named by the id: a
    node's GPUs include those of its ResourceSlices (``AddDRAGPUs``) and a pod's GPUs include its
    claims' (``GetDraGpusCount``); a claim of 2 GPUs where each node has one DRA GPU is refused,
    a claim of 1 is bound (on either node)."""
    out = post_decision(dra_objects(count), KAI, client=client)
    assert (bound(out, "name1", "n1") is None) is refused


# ==========================================================================================
# The ConfigMap PreFilter in preempt: a refused preemptor evicts nothing
# ==========================================================================================
def preempt_objects(with_configmap: bool) -> list[dict[str, Any]]:
    """Node ``n1`` (8 GPUs) full with the Running ``train`` job ``old`` (8 GPUs, preemptible) and the
    Pending ``build`` job ``urgent`` (8 GPUs) of the same queue, whose pod takes ``envFrom`` the
    ConfigMap ``settings`` (present in ``test`` iff ``with_configmap``)."""
    objs: list[dict[str, Any]] = [QUEUE, node("n1")]
    for name, pc in (("old", "train"), ("urgent", "build")):
        pg = podgroup()
        pg["metadata"]["name"] = name
        pg["spec"]["priorityClassName"] = pc
        p = pod(f"{name}-0", ns=NS, cpu="1", memory="1Gi", gpu=8, annotations={"pod-group-name": name},
                node="n1" if name == "old" else None)  # fmt: skip
        objs += [pg, p]
    objs[-1]["spec"]["containers"][0]["envFrom"] = [env_from("settings")]
    objs.append(configmap("settings") if with_configmap else LISTED)
    return objs


PREEMPT = {"profile": "kai", "actions": "allocate, preempt"}


def test_a_preemptor_whose_configmap_exists_evicts_a_lower_priority_job(client: Any) -> None:
    """config_maps.go ``PreFilter`` passes (the ConfigMap ``settings`` exists in the pod's namespace),
    so the ``build`` job preempts the ``train`` job filling the node: ``old-0`` is evicted (and
    ``urgent-0`` nominated to n1). The counterpart of the xfail below."""
    out = post_decision(preempt_objects(True), PREEMPT, client=client)
    assert [e["pod"] for e in out["evictions"]] == [f"{NS}/old-0"]


def test_a_preemptor_missing_a_required_configmap_evicts_nothing(client: Any) -> None:
    """config_maps.go ``PreFilter`` (the rule of ``TestPreFilter``'s "no configmaps, required
    configmaps" row), in preempt: the preemptor's pod fails the PreFilter on every node, so the
    solver's simulation cannot place it whatever it evicts and KAI's preempt commits no eviction:
    ``old-0`` keeps running."""
    out = post_decision(preempt_objects(False), PREEMPT, client=client)
    assert out["evictions"] == []
