"""Fields of Kueue's objects that Kueue reads and Gangplank does not model: each, when set,
named in a warning saying what Kueue would do with it. (Fields no version has are pruned:
:mod:`app.kueue.crdfields`; the Configuration's are in :mod:`app.kueue.objects`.)

Kinds Kueue's controllers read that Gangplank does not (ProvisioningRequestConfig,
MultiKueueConfig, MultiKueueCluster) are named here too, with what they would change."""

from __future__ import annotations

from typing import Any

#: kind -> what Kueue does with it, for the kinds of ``kueue.x-k8s.io`` Gangplank does not read
KINDS = {
    "ProvisioningRequestConfig": "the provisioning admission check's configuration (ProvisioningRequests to the "
                                 "cluster autoscaler: not modelled; a provisioning check's state is read from each "
                                 "Workload's status.admissionChecks, and Kueue's controller would set it Ready at once "
                                 "for a Workload requesting none of its managedResources)",
    "MultiKueueConfig": "MultiKueue's worker clusters (dispatch to them is not modelled: a Workload of a ClusterQueue "
                        "with a MultiKueue check gets quota reserved here and is placed by a worker)",
    "MultiKueueCluster": "a MultiKueue worker cluster (not modelled: see MultiKueueConfig)",
}


def _set(v: Any) -> bool:
    return v not in (None, "", [], {})


def notes(o: dict, who: str) -> list[str]:
    """The warnings for the unmodelled fields ``o`` (a Kueue object, ``who`` its kind and
    name as warnings name it) sets."""
    kind = o.get("kind")
    spec = o.get("spec") if isinstance(o.get("spec"), dict) else {}
    status = o.get("status") if isinstance(o.get("status"), dict) else {}
    out: list[str] = []
    if kind == "Workload":
        if _set(spec.get("preemptionGates")):
            out.append(f"{who}: spec.preemptionGates: Kueue honours them only with the ConcurrentAdmission or "
                       "MultiKueueOrchestratedPreemption gates (alpha, off by default); not modelled: it is preempted "
                       "as without them")  # fmt: skip
        if _set(status.get("clusterName")) or _set(status.get("nominatedClusterNames")):
            out.append(f"{who}: status.clusterName / nominatedClusterNames: MultiKueue dispatched (or nominated) it to "
                       "worker clusters; not modelled: answered as in this cluster")  # fmt: skip
    elif kind == "ClusterQueue" and _set(spec.get("concurrentAdmissionPolicy")):
        out.append(f"{who}: spec.concurrentAdmissionPolicy: used only with the ConcurrentAdmission gate (alpha, off by "
                   "default): not modelled")  # fmt: skip
    elif kind == "AdmissionCheck" and _set(spec.get("parameters")):
        out.append(f"{who}: spec.parameters (the check controller's configuration) not modelled: the check's state is "
                   "read from each Workload's status.admissionChecks")  # fmt: skip
    elif isinstance(kind, str) and kind in KINDS:
        out.append(f"{who}: {KINDS[kind]}")
    return out
