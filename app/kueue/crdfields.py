"""The fields of Kueue's API objects, by version, as its Go types have them
(``apis/kueue/v1beta1`` and ``v1beta2/*_types.go`` at the Kueue commit modelled; extracted
from the json tags, ``inline`` structs merged). The API server prunes what an object's
version does not have (structural schemas): such a field never reaches Kueue, so
:func:`prune` drops it, and the caller names it in a warning. A value of None is a field
whose inside is not checked here (a scalar, a map or list of scalars, or a type of another
package: ``metadata``, pod templates, tolerations, label selectors, quantities);
``{"[]": ...}`` is a list of that struct, ``{"{}": ...}`` a map of it.
"""

from __future__ import annotations

from typing import Any

from app.errors import join_pointer
from app.kueue import unread

#: the envelope of every object (``TypeMeta``)
ENVELOPE = ("apiVersion", "kind")

FIELDS: dict[str, dict[str, dict[str, Any]]] = {
    "v1beta1": {
        "AdmissionCheck": {
            "metadata": None,
            "spec": {
                "controllerName": None,
                "parameters": {
                    "apiGroup": None,
                    "kind": None,
                    "name": None,
                },
                "retryDelayMinutes": None,
            },
            "status": {
                "conditions": None,
            },
        },
        "ClusterQueue": {
            "metadata": None,
            "spec": {
                "admissionChecks": None,
                "admissionChecksStrategy": {
                    "admissionChecks": {
                        "[]": {
                            "name": None,
                            "onFlavors": None,
                        },
                    },
                },
                "admissionScope": {
                    "admissionMode": None,
                },
                "cohort": None,
                "fairSharing": {
                    "weight": None,
                },
                "flavorFungibility": {
                    "preference": None,
                    "whenCanBorrow": None,
                    "whenCanPreempt": None,
                },
                "namespaceSelector": None,
                "preemption": {
                    "borrowWithinCohort": {
                        "maxPriorityThreshold": None,
                        "policy": None,
                    },
                    "reclaimWithinCohort": None,
                    "withinClusterQueue": None,
                },
                "queueingStrategy": None,
                "resourceGroups": {
                    "[]": {
                        "coveredResources": None,
                        "flavors": {
                            "[]": {
                                "name": None,
                                "resources": {
                                    "[]": {
                                        "borrowingLimit": None,
                                        "lendingLimit": None,
                                        "name": None,
                                        "nominalQuota": None,
                                    },
                                },
                            },
                        },
                    },
                },
                "stopPolicy": None,
            },
            "status": {
                "admittedWorkloads": None,
                "conditions": None,
                "fairSharing": {
                    "admissionFairSharingStatus": {
                        "consumedResources": None,
                        "lastUpdate": None,
                    },
                    "weightedShare": None,
                },
                "flavorsReservation": {
                    "[]": {
                        "name": None,
                        "resources": {
                            "[]": {
                                "borrowed": None,
                                "name": None,
                                "total": None,
                            },
                        },
                    },
                },
                "flavorsUsage": {
                    "[]": {
                        "name": None,
                        "resources": {
                            "[]": {
                                "borrowed": None,
                                "name": None,
                                "total": None,
                            },
                        },
                    },
                },
                "pendingWorkloads": None,
                "pendingWorkloadsStatus": {
                    "clusterQueuePendingWorkload": {
                        "[]": {
                            "name": None,
                            "namespace": None,
                        },
                    },
                    "lastChangeTime": None,
                },
                "reservingWorkloads": None,
            },
        },
        "Cohort": {
            "metadata": None,
            "spec": {
                "fairSharing": {
                    "weight": None,
                },
                "parentName": None,
                "resourceGroups": {
                    "[]": {
                        "coveredResources": None,
                        "flavors": {
                            "[]": {
                                "name": None,
                                "resources": {
                                    "[]": {
                                        "borrowingLimit": None,
                                        "lendingLimit": None,
                                        "name": None,
                                        "nominalQuota": None,
                                    },
                                },
                            },
                        },
                    },
                },
            },
            "status": {
                "fairSharing": {
                    "admissionFairSharingStatus": {
                        "consumedResources": None,
                        "lastUpdate": None,
                    },
                    "weightedShare": None,
                },
            },
        },
        "LocalQueue": {
            "metadata": None,
            "spec": {
                "clusterQueue": None,
                "fairSharing": {
                    "weight": None,
                },
                "stopPolicy": None,
            },
            "status": {
                "admittedWorkloads": None,
                "conditions": None,
                "fairSharing": {
                    "admissionFairSharingStatus": {
                        "consumedResources": None,
                        "lastUpdate": None,
                    },
                    "weightedShare": None,
                },
                "flavorUsage": {
                    "[]": {
                        "name": None,
                        "resources": {
                            "[]": {
                                "name": None,
                                "total": None,
                            },
                        },
                    },
                },
                "flavors": {
                    "[]": {
                        "name": None,
                        "nodeLabels": None,
                        "nodeTaints": None,
                        "resources": None,
                        "topology": {
                            "levels": None,
                            "name": None,
                        },
                    },
                },
                "flavorsReservation": {
                    "[]": {
                        "name": None,
                        "resources": {
                            "[]": {
                                "name": None,
                                "total": None,
                            },
                        },
                    },
                },
                "pendingWorkloads": None,
                "reservingWorkloads": None,
            },
        },
        "ResourceFlavor": {
            "metadata": None,
            "spec": {
                "nodeLabels": None,
                "nodeTaints": None,
                "tolerations": None,
                "topologyName": None,
            },
        },
        "Topology": {
            "metadata": None,
            "spec": {
                "levels": {
                    "[]": {
                        "nodeLabel": None,
                    },
                },
            },
        },
        "Workload": {
            "metadata": None,
            "spec": {
                "active": None,
                "maximumExecutionTimeSeconds": None,
                "podSets": {
                    "[]": {
                        "count": None,
                        "minCount": None,
                        "name": None,
                        "template": None,
                        "topologyRequest": {
                            "podIndexLabel": None,
                            "podSetGroupName": None,
                            "podSetSliceRequiredTopology": None,
                            "podSetSliceSize": None,
                            "preferred": None,
                            "required": None,
                            "subGroupCount": None,
                            "subGroupIndexLabel": None,
                            "unconstrained": None,
                        },
                    },
                },
                "priority": None,
                "priorityClassName": None,
                "priorityClassSource": None,
                "queueName": None,
            },
            "status": {
                "accumulatedPastExexcutionTimeSeconds": None,
                "admission": {
                    "clusterQueue": None,
                    "podSetAssignments": {
                        "[]": {
                            "count": None,
                            "delayedTopologyRequest": None,
                            "flavors": None,
                            "name": None,
                            "resourceUsage": None,
                            "topologyAssignment": {
                                "domains": {
                                    "[]": {
                                        "count": None,
                                        "values": None,
                                    },
                                },
                                "levels": None,
                            },
                        },
                    },
                },
                "admissionChecks": {
                    "[]": {
                        "lastTransitionTime": None,
                        "message": None,
                        "name": None,
                        "podSetUpdates": {
                            "[]": {
                                "annotations": None,
                                "labels": None,
                                "name": None,
                                "nodeSelector": None,
                                "tolerations": None,
                            },
                        },
                        "requeueAfterSeconds": None,
                        "retryCount": None,
                        "state": None,
                    },
                },
                "clusterName": None,
                "conditions": None,
                "nominatedClusterNames": None,
                "reclaimablePods": {
                    "[]": {
                        "count": None,
                        "name": None,
                    },
                },
                "requeueState": {
                    "count": None,
                    "requeueAt": None,
                },
                "resourceRequests": {
                    "[]": {
                        "name": None,
                        "resources": None,
                    },
                },
                "schedulingStats": {
                    "evictions": {
                        "[]": {
                            "count": None,
                            "reason": None,
                            "underlyingCause": None,
                        },
                    },
                },
                "unhealthyNodes": {
                    "[]": {
                        "name": None,
                    },
                },
            },
        },
        "WorkloadPriorityClass": {
            "description": None,
            "metadata": None,
            "value": None,
        },
    },
    "v1beta2": {
        "AdmissionCheck": {
            "metadata": None,
            "spec": {
                "controllerName": None,
                "parameters": {
                    "apiGroup": None,
                    "kind": None,
                    "name": None,
                },
            },
            "status": {
                "conditions": None,
            },
        },
        "ClusterQueue": {
            "metadata": None,
            "spec": {
                "admissionChecksStrategy": {
                    "admissionChecks": {
                        "[]": {
                            "name": None,
                            "onFlavors": None,
                        },
                    },
                },
                "admissionScope": {
                    "admissionMode": None,
                },
                "cohortName": None,
                "concurrentAdmissionPolicy": {
                    "migration": {
                        "constraints": {
                            "lastAcceptableFlavorName": None,
                        },
                        "mode": None,
                    },
                },
                "fairSharing": {
                    "weight": None,
                },
                "flavorFungibility": {
                    "preference": None,
                    "whenCanBorrow": None,
                    "whenCanPreempt": None,
                },
                "namespaceSelector": None,
                "preemption": {
                    "borrowWithinCohort": {
                        "maxPriorityThreshold": None,
                        "policy": None,
                    },
                    "reclaimWithinCohort": None,
                    "withinClusterQueue": None,
                },
                "queueingStrategy": None,
                "resourceGroups": {
                    "[]": {
                        "coveredResources": None,
                        "flavors": {
                            "[]": {
                                "name": None,
                                "resources": {
                                    "[]": {
                                        "borrowingLimit": None,
                                        "lendingLimit": None,
                                        "name": None,
                                        "nominalQuota": None,
                                    },
                                },
                            },
                        },
                    },
                },
                "stopPolicy": None,
            },
            "status": {
                "admittedWorkloads": None,
                "conditions": None,
                "fairSharing": {
                    "weightedShare": None,
                },
                "flavorsReservation": {
                    "[]": {
                        "name": None,
                        "resources": {
                            "[]": {
                                "borrowed": None,
                                "name": None,
                                "total": None,
                            },
                        },
                    },
                },
                "flavorsUsage": {
                    "[]": {
                        "name": None,
                        "resources": {
                            "[]": {
                                "borrowed": None,
                                "name": None,
                                "total": None,
                            },
                        },
                    },
                },
                "pendingWorkloads": None,
                "reservingWorkloads": None,
            },
        },
        "Cohort": {
            "metadata": None,
            "spec": {
                "fairSharing": {
                    "weight": None,
                },
                "parentName": None,
                "resourceGroups": {
                    "[]": {
                        "coveredResources": None,
                        "flavors": {
                            "[]": {
                                "name": None,
                                "resources": {
                                    "[]": {
                                        "borrowingLimit": None,
                                        "lendingLimit": None,
                                        "name": None,
                                        "nominalQuota": None,
                                    },
                                },
                            },
                        },
                    },
                },
            },
            "status": {
                "fairSharing": {
                    "weightedShare": None,
                },
            },
        },
        "LocalQueue": {
            "metadata": None,
            "spec": {
                "clusterQueue": None,
                "fairSharing": {
                    "weight": None,
                },
                "stopPolicy": None,
            },
            "status": {
                "admittedWorkloads": None,
                "conditions": None,
                "fairSharing": {
                    "admissionFairSharingStatus": {
                        "consumedResources": None,
                        "lastUpdate": None,
                    },
                    "weightedShare": None,
                },
                "flavorsReservation": {
                    "[]": {
                        "name": None,
                        "resources": {
                            "[]": {
                                "name": None,
                                "total": None,
                            },
                        },
                    },
                },
                "flavorsUsage": {
                    "[]": {
                        "name": None,
                        "resources": {
                            "[]": {
                                "name": None,
                                "total": None,
                            },
                        },
                    },
                },
                "pendingWorkloads": None,
                "reservingWorkloads": None,
            },
        },
        "ResourceFlavor": {
            "metadata": None,
            "spec": {
                "nodeLabels": None,
                "nodeTaints": None,
                "tolerations": None,
                "topologyName": None,
            },
        },
        "Topology": {
            "metadata": None,
            "spec": {
                "levels": {
                    "[]": {
                        "nodeLabel": None,
                    },
                },
            },
        },
        "Workload": {
            "metadata": None,
            "spec": {
                "active": None,
                "maximumExecutionTimeSeconds": None,
                "podSets": {
                    "[]": {
                        "count": None,
                        "minCount": None,
                        "name": None,
                        "template": None,
                        "topologyRequest": {
                            "podIndexLabel": None,
                            "podSetGroupName": None,
                            "podSetSliceRequiredTopology": None,
                            "podSetSliceSize": None,
                            "podsetSliceRequiredTopologyConstraints": {
                                "[]": {
                                    "size": None,
                                    "topology": None,
                                },
                            },
                            "preferred": None,
                            "required": None,
                            "subGroupCount": None,
                            "subGroupIndexLabel": None,
                            "unconstrained": None,
                        },
                    },
                },
                "preemptionGates": {
                    "[]": {
                        "name": None,
                    },
                },
                "priority": None,
                "priorityClassRef": {
                    "group": None,
                    "kind": None,
                    "name": None,
                },
                "queueName": None,
            },
            "status": {
                "accumulatedPastExecutionTimeSeconds": None,
                "admission": {
                    "clusterQueue": None,
                    "podSetAssignments": {
                        "[]": {
                            "count": None,
                            "delayedTopologyRequest": None,
                            "flavors": None,
                            "name": None,
                            "resourceUsage": None,
                            "topologyAssignment": {
                                "levels": None,
                                "slices": {
                                    "[]": {
                                        "domainCount": None,
                                        "podCounts": {
                                            "individual": None,
                                            "universal": None,
                                        },
                                        "valuesPerLevel": {
                                            "[]": {
                                                "individual": {
                                                    "prefix": None,
                                                    "roots": None,
                                                    "suffix": None,
                                                },
                                                "universal": None,
                                            },
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
                "admissionChecks": {
                    "[]": {
                        "lastTransitionTime": None,
                        "message": None,
                        "name": None,
                        "podSetUpdates": {
                            "[]": {
                                "annotations": None,
                                "labels": None,
                                "name": None,
                                "nodeSelector": None,
                                "tolerations": None,
                            },
                        },
                        "requeueAfterSeconds": None,
                        "retryCount": None,
                        "state": None,
                    },
                },
                "clusterName": None,
                "conditions": None,
                "nominatedClusterNames": None,
                "preemptionGates": {
                    "[]": {
                        "lastTransitionTime": None,
                        "name": None,
                        "position": None,
                    },
                },
                "reclaimablePods": {
                    "[]": {
                        "count": None,
                        "name": None,
                    },
                },
                "requeueState": {
                    "count": None,
                    "requeueAt": None,
                },
                "resourceRequests": {
                    "[]": {
                        "name": None,
                        "resources": None,
                    },
                },
                "schedulingStats": {
                    "evictions": {
                        "[]": {
                            "count": None,
                            "reason": None,
                            "underlyingCause": None,
                        },
                    },
                },
                "unhealthyNodes": {
                    "[]": {
                        "name": None,
                    },
                },
            },
        },
        "WorkloadPriorityClass": {
            "description": None,
            "metadata": None,
            "value": None,
        },
    },
}


def prune(o: dict, version: str, kind: str, ptr: str) -> list[str]:
    """Drop from ``o`` (in place) every field its version's ``kind`` does not have, at any
    depth of Kueue's own types, as the API server prunes it; the dropped fields' pointers,
    in field-name order. Another version or kind: nothing is dropped."""
    fields = FIELDS.get(version, {}).get(kind)
    if fields is None:
        return []
    dropped: list[str] = []
    for key in sorted(key for key in o if key not in ENVELOPE):
        _field(o, key, fields, ptr, dropped, True)
    return dropped


def pruned(o: dict, ptr: str) -> str:
    """:func:`prune` on a Kueue object of the request (its apiVersion and kind), and the
    warning naming what was dropped ("" when nothing was)."""
    av, kind = o.get("apiVersion"), o.get("kind")
    if not isinstance(av, str) or not isinstance(kind, str):
        return ""
    dropped = prune(o, av.rsplit("/", 1)[-1], kind, ptr)
    if not dropped:
        return ""
    shown = ", ".join(p[len(ptr):] for p in dropped[:5]) + (f" and {len(dropped) - 5} more" if len(dropped) > 5 else "")
    one = len(dropped) == 1
    return (f"{who(o)} ({av}): {shown} {'is no field' if one else 'are no fields'} of that version: the API "
            f"server drops {'it' if one else 'them'} (structural schema pruning), so Kueue never sees "
            f"{'it' if one else 'them'}; not read")  # fmt: skip


def who(o: dict) -> str:
    """A Kueue object as warnings name it: ``Kueue <kind> <namespace/>name``."""
    meta = o.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    ns = meta.get("namespace") if isinstance(meta, dict) else None
    return f"Kueue {o.get('kind')} {f'{ns}/{name}' if isinstance(ns, str) and ns else name}"


def notes(o: dict, ptr: str) -> list[str]:
    """The warnings for a Kueue object of the request: the fields pruned (:func:`pruned`),
    then those Kueue reads that Gangplank does not model (:mod:`app.kueue.unread`)."""
    first = pruned(o, ptr)
    return ([first] if first else []) + unread.notes(o, who(o))


def unknown(value: Any, fields: dict[str, Any] | None, ptr: str) -> list[str]:
    """The pointers of the fields of ``value`` that ``fields`` (a struct tree as
    :data:`FIELDS` holds them) does not have, in field-name order, depth first."""
    found: list[str] = []
    _value(value, fields, ptr, found, False)
    return found


def _field(parent: dict, key: str, fields: dict[str, Any], ptr: str, found: list[str], drop: bool) -> None:
    if key not in fields:
        found.append(join_pointer(ptr, key))
        if drop:
            del parent[key]
        return
    _value(parent[key], fields[key], join_pointer(ptr, key), found, drop)


def _value(value: Any, fields: dict[str, Any] | None, ptr: str, found: list[str], drop: bool) -> None:
    if fields is None:
        return
    if "[]" in fields:
        for i, item in enumerate(value if isinstance(value, list) else ()):
            _value(item, fields["[]"], join_pointer(ptr, i), found, drop)
        return
    if not isinstance(value, dict):
        return
    for key in sorted(value):
        if "{}" in fields:
            _value(value[key], fields["{}"], join_pointer(ptr, key), found, drop)
        else:
            _field(value, key, fields, ptr, found, drop)
