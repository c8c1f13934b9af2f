"""KAI's ConfigMap predicate (``k8s_internal/predicates/config_maps.go``), a PreFilter of its
``predicates`` plugin: a pod fits no node while a ConfigMap it requires is missing from its
namespace.

A pod requires the ConfigMaps it names, not ``optional``:

* in a volume some container mounts (regular, init or ephemeral: a ``volumeMounts`` entry
  naming the volume), as a ``configMap`` volume or a ``projected`` volume's ``configMap``
  source;
* in any container's ``env[].valueFrom.configMapKeyRef`` or ``envFrom[].configMapRef``
  (init, regular and ephemeral containers);

except a name starting with the pod's ``runai/shared-gpu-configmap`` annotation (GPU
sharing's own ConfigMaps, made after binding).

KAI lists every ConfigMap of the cluster. A snapshot holding no ConfigMap at all is taken as
one that does not list them (a ``kubectl get`` of pods and nodes): the predicate is then not
applied (every real pod mounts its namespace's ``kube-root-ca.crt`` through its service
account volume, so every pod would be refused). With any ConfigMap in the snapshot, the
snapshot's ConfigMaps are the cluster's, as KAI reads them.

The pods' specs are read from the request's objects when a pod is first asked about (the
text reader keeps no volumes or environment: the objects are parsed again then, once).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: ``sharedGPUConfigMapAnnotation``
SHARED_GPU_CONFIGMAP = "runai/shared-gpu-configmap"


def required_configmaps(pod: dict[str, Any]) -> list[str]:
    """``getAllRequiredConfigMapNames``: the ConfigMaps ``pod`` (a Pod object) requires,
    sorted (KAI's are a map's keys)."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return []
    meta = pod.get("metadata")
    ann = meta.get("annotations") if isinstance(meta, dict) else None
    prefix = ann.get(SHARED_GPU_CONFIGMAP) if isinstance(ann, dict) else None
    containers = [*_list(spec, "initContainers"), *_list(spec, "containers")]
    ephemeral = _list(spec, "ephemeralContainers")
    mounted = {m.get("name") for c in (*containers, *ephemeral) for m in _list(c, "volumeMounts")}
    names: set[str] = set()

    def add(ref: Any) -> None:
        if not isinstance(ref, dict) or ref.get("optional") is True:
            return
        name = ref.get("name") if isinstance(ref.get("name"), str) else ""
        if isinstance(prefix, str) and name.startswith(prefix):
            return  # (isSharedGPUConfigMap)
        names.add(name)

    for v in _list(spec, "volumes"):
        if v.get("name") not in mounted:
            continue
        if "configMap" in v:
            add(v.get("configMap"))
        projected = v.get("projected")
        if isinstance(projected, dict):
            for source in _list(projected, "sources"):
                if "configMap" in source:
                    add(source.get("configMap"))
    for c in (*containers, *ephemeral):
        for e in _list(c, "env"):
            value_from = e.get("valueFrom")
            if isinstance(value_from, dict) and "configMapKeyRef" in value_from:
                add(value_from.get("configMapKeyRef"))
        for e in _list(c, "envFrom"):
            if "configMapRef" in e:
                add(e.get("configMapRef"))
    return sorted(names)


def _list(obj: Any, key: str) -> list[dict[str, Any]]:
    v = obj.get(key) if isinstance(obj, dict) else None
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


class ConfigMapPredicate:
    """``ConfigMapPredicate.PreFilter`` over the snapshot's ConfigMaps; ``pod_of`` gives a
    task's Pod object (None for a pod the request did not carry as one)."""

    def __init__(self, configmaps: frozenset[tuple[str, str]], pod_of: Callable[[str], dict[str, Any] | None]) -> None:
        self.configmaps = configmaps
        self.pod_of = pod_of
        self._missing: dict[str, tuple[str, ...]] = {}

    def missing(self, namespace: str, pointer: str) -> tuple[str, ...]:
        """The ConfigMaps the pod at ``pointer`` requires that its namespace lacks."""
        got = self._missing.get(pointer)
        if got is None:
            pod = self.pod_of(pointer)
            names = required_configmaps(pod) if pod is not None else []
            got = self._missing[pointer] = tuple(n for n in names if (namespace, n) not in self.configmaps)
        return got
