"""Kueue's feature gates (``pkg/features/kube_features.go`` at the Kueue commit modelled):
their defaults, the Configuration's ``featureGates`` read against them, and the gates
that change what Gangplank decides.

Modelled (a gate set to the other value changes the answer as it changes Kueue's): the
gates in ``MODELLED``, each applied where Kueue reads it: ``AdmissionFairSharing``,
``DisableWaitForPodsReady``, ``QuotaCheckStrategy``, ``PartialAdmission``, ``PriorityBoost``
(:mod:`app.kueue.priorityboost`), ``ShortWorkloadNames``, ``AdmissionGatedBy``,
``ElasticJobsViaWorkloadSlices`` (:mod:`app.kueue.jobs`), the Pod integration's
``WorkloadIdentifierAnnotations``, ``PodIntegrationValidateGroupOwner`` and
``FastQuotaReleaseInPodIntegration`` (:mod:`app.kueue.pods`), ``ReclaimablePods``
(:mod:`app.kueue.reclaimable`), ``TASProfileMixed``, ``TASRespectNodeAffinityPreferred``,
``TASHandleOverlappingFlavors`` (:mod:`app.kueue.tas`), ``TASBalancedPlacement``
(:mod:`app.kueue.tas_balanced`), ``TASFailedNodeReplacement``,
``TASFailedNodeReplacementFailFast``, ``SkipReassignmentForPodOwnedWorkloads`` (:mod:`app.kueue.mapping`'s second pass), ``TASRecomputeAssignmentWithinSchedulingCycle``, ``RecomputeAssignmentUponPreemptionTargetsOverlap``, ``PrioritySortingWithinCohort`` (:mod:`app.kueue.quota`), ``KueueDRAIntegration``,
``KueueDRARejectWorkloadsWhenDRADisabled``, ``KueueDRAIntegrationExtendedResource``,
``KueueDRAIntegrationPartitionableDevices`` (:mod:`app.kueue.dra`), ``SchedulingEquivalenceHashing`` (:mod:`app.kueue.quota`). A locked gate set to its other value is Kueue's start
error (a 422), and so is an enabled gate whose dependency (``DEPENDENCIES``) is disabled; any other gate set to a value other than its default is named in the
warnings (Gangplank decides as with the default). A name not in Kueue's list is named too
(Kueue refuses names its feature gate does not know at start).
"""

from __future__ import annotations

from typing import Any

from app.errors import InputError, join_pointer

#: gate -> its default (the last entry of ``defaultVersionedFeatureGates``)
DEFAULTS: dict[str, bool] = {
    "AdmissionFairSharing": True, "AdmissionGatedBy": True, "AssignQueueLabelsForPods": True,
    "CleanupProvisioningRequestsOnEviction": True, "ConcurrentAdmission": False, "CustomMetricLabels": False,
    "DeferRayServiceFinalizationForRedisCleanup": True, "DisableWaitForPodsReady": False,
    "ElasticJobsViaWorkloadSlices": True, "ElasticJobsViaWorkloadSlicesWithTAS": False,
    "FailureRecoveryPolicy": False, "FairSharingPreemptWithinNominal": True,
    "FairSharingPrioritizeNonBorrowing": True, "FastQuotaReleaseInPodIntegration": False,
    "FinishOrphanedWorkloads": True, "FlavorFungibility": True, "FlavorFungibilityPreserveScanProgress": True,
    "KueueDRAIntegration": True, "KueueDRAIntegrationConsumableCapacity": False,
    "KueueDRAIntegrationExtendedResource": True, "KueueDRAIntegrationPartitionableDevices": True,
    "KueueDRARejectWorkloadsWhenDRADisabled": True, "LWSImmutableGroupSize": True, "LocalQueueMetrics": True,
    "MetricForWorkloadCreationLatency": True, "MetricsForCohorts": True, "MultiKueue": True,
    "MultiKueueAdaptersForCustomJobs": True, "MultiKueueClusterProfile": False,
    "MultiKueueIncrementalDispatcherConfig": True, "MultiKueueIncrementalDispatcherRespectConfigOrder": True,
    "MultiKueueKubeConfigPathValidation": True, "MultiKueueManagerQuotaAutomation": False,
    "MultiKueueOrchestratedPreemption": False, "MultiKueueRemoteSpecSync": True, "PartialAdmission": True,
    "PodIntegrationValidateGroupOwner": True, "PrioritizePreemptorWorkloads": False, "PriorityBoost": False,
    "PrioritySortingWithinCohort": True, "QuotaCheckStrategy": True, "ReclaimablePods": True,
    "RecomputeAssignmentUponPreemptionTargetsOverlap": True, "RejectUpdatesToCQWithInvalidOnFlavors": False,
    "RemoveFinalizersWithStrictPatch": True, "SchedulerLibraryIntegration": False,
    "SchedulingEquivalenceHashing": True, "ShortWorkloadNames": False, "SkipAncestorCheckForDeletedWorkloads": True,
    "SkipReassignmentForPodOwnedWorkloads": True, "SparkApplicationIntegration": False,
    "TASAssignmentsEncodingByHostnamePrefix": True, "TASBalancedPlacement": False, "TASCacheNodeMatchResults": True,
    "TASCacheTopologyTree": True, "TASCachingRemainingResources": True, "TASFailedNodeReplacement": True,
    "TASFailedNodeReplacementFailFast": True, "TASHandleOverlappingFlavors": True, "TASMultiLayerTopology": True,
    "TASProfileMixed": True, "TASRecomputeAssignmentWithinSchedulingCycle": True,
    "TASReplaceNodeDueToNotReadyOverFixedTime": False, "TASReplaceNodeOnNodeTaints": True,
    "TASReplaceNodeOnPodTermination": True, "TASRespectNodeAffinityPreferred": False,
    "TASValidateWorkloadSliceSize": True, "TopologyAwareScheduling": True,
    "UnadmittedWorkloadsExplicitStatus": False, "UnadmittedWorkloadsObservability": True,
    "ValidateRayAndSparkJobUpdates": True, "VectorizedResourceRequests": True, "VisibilityOnDemand": True,
    "WorkloadIdentifierAnnotations": True, "WorkloadPriorityClassDefaulting": True,
    "WorkloadRequestUseMergePatch": False, "WorkloadValidateResourcesAreNonNegative": True,
    "WorkloadValidationForPodSetMetadata": True,
}
#: gates locked to their default (``LockToDefault``): true
LOCKED: frozenset[str] = frozenset({"ManagedJobsNamespaceSelectorAlwaysRespected", "TLSOptions"})
#: the gates whose effect is modelled
MODELLED = frozenset({"AdmissionFairSharing", "DisableWaitForPodsReady", "QuotaCheckStrategy", "PartialAdmission",
                      "PriorityBoost", "ShortWorkloadNames", "AdmissionGatedBy", "ElasticJobsViaWorkloadSlices",
                      "WorkloadIdentifierAnnotations", "PodIntegrationValidateGroupOwner",
                      "FastQuotaReleaseInPodIntegration", "ReclaimablePods", "TASProfileMixed",
                      "TASRecomputeAssignmentWithinSchedulingCycle", "TASRespectNodeAffinityPreferred",
                      "TASHandleOverlappingFlavors", "TASFailedNodeReplacement", "TASFailedNodeReplacementFailFast",
                      "TASBalancedPlacement", "SkipReassignmentForPodOwnedWorkloads",
                      "RecomputeAssignmentUponPreemptionTargetsOverlap", "PrioritySortingWithinCohort",
                      "FlavorFungibilityPreserveScanProgress", "KueueDRAIntegration",
                      "KueueDRARejectWorkloadsWhenDRADisabled", "SchedulingEquivalenceHashing",
                      "KueueDRAIntegrationExtendedResource", "KueueDRAIntegrationPartitionableDevices"})  # fmt: skip
#: gate -> the gates it needs on (``defaultFeatureGateDependencies``): component-base's
#: ``SetFromMap`` refuses an enabled gate whose dependency is disabled, and Kueue does not start
DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "TASFailedNodeReplacement": ("TopologyAwareScheduling",),
    "TASFailedNodeReplacementFailFast": ("TopologyAwareScheduling", "TASFailedNodeReplacement"),
    "TASReplaceNodeOnPodTermination": ("TopologyAwareScheduling", "TASFailedNodeReplacement"),
    "TASReplaceNodeDueToNotReadyOverFixedTime": ("TopologyAwareScheduling", "TASFailedNodeReplacement"),
    "TASBalancedPlacement": ("TopologyAwareScheduling",),
    "TASReplaceNodeOnNodeTaints": ("TopologyAwareScheduling",),
    "TASMultiLayerTopology": ("TopologyAwareScheduling",),
    "TASRespectNodeAffinityPreferred": ("TopologyAwareScheduling",),
    "UnadmittedWorkloadsExplicitStatus": ("UnadmittedWorkloadsObservability",),
    "TASHandleOverlappingFlavors": ("TopologyAwareScheduling",),
    "TASProfileMixed": ("TopologyAwareScheduling",),
    "TASRecomputeAssignmentWithinSchedulingCycle": ("TopologyAwareScheduling",),
    "ElasticJobsViaWorkloadSlicesWithTAS": ("ElasticJobsViaWorkloadSlices", "TopologyAwareScheduling"),
    "KueueDRAIntegrationExtendedResource": ("KueueDRAIntegration",),
    "KueueDRAIntegrationPartitionableDevices": ("KueueDRAIntegration",),
    "KueueDRAIntegrationConsumableCapacity": ("KueueDRAIntegration",),
    "FlavorFungibilityPreserveScanProgress": ("FlavorFungibility",),
}


def read(raw: Any, ptr: str, ident: dict[str, str], notes: list[str]) -> dict[str, bool]:
    """``featureGates`` (name -> bool): every gate's value, the defaults where unset."""
    gates = dict(DEFAULTS)
    gates.update({k: True for k in LOCKED})
    if raw is None:
        return gates
    if not isinstance(raw, dict):
        raise InputError("'featureGates' must be an object of gate name -> true / false", ptr, ident)
    unknown, other = [], []
    for name, value in sorted(raw.items()):
        gp = join_pointer(ptr, name)
        if not isinstance(value, bool):
            raise InputError("a feature gate must be true or false", gp, ident)
        if name in LOCKED:
            if value is not True:
                raise InputError(f"cannot set feature gate {name} to {str(value).lower()}, feature is locked to true", gp, ident)
            continue
        if name not in DEFAULTS:
            unknown.append(name)
            continue
        gates[name] = value
        if name not in MODELLED and value != DEFAULTS[name]:
            other.append(f"{name}={str(value).lower()}")
    for name, needs in sorted(DEPENDENCIES.items()):
        off = [dep for dep in needs if not gates[dep]]
        if gates[name] and off:
            raise InputError(f"{name} is enabled, but depends on features that are disabled: [{' '.join(off)}] "
                             "(Kueue does not start)", ptr, ident)  # fmt: skip
    if other:
        notes.append(f"Kueue Configuration: featureGates {', '.join(other)} not modelled: Gangplank decides as with "
                     "their defaults")  # fmt: skip
    if unknown:
        notes.append(f"Kueue Configuration: featureGates {', '.join(unknown)} are not Kueue's gates (Kueue's own list "
                     "has no such name; Kueue refuses a name its feature gates do not know): ignored")  # fmt: skip
    return gates
