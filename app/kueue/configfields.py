"""The fields of Kueue's manager ``Configuration``, by version, as its Go types have them
(``apis/config/v1beta1`` and ``v1beta2/configuration_types.go`` at the Kueue commit modelled;
extracted from the json tags, ``inline`` structs merged). Kueue decodes its Configuration
strictly (``serializer.EnableStrict``): a field not here is an error and Kueue does not
start. A value of None is a field whose inside is not checked here (a scalar, a map or list
of scalars, or a type of another package: ``leaderElection``, ``managedJobsNamespaceSelector``,
durations, quantities); ``{"[]": ...}`` is a list of that struct, ``{"{}": ...}`` a map of it.
"""

from __future__ import annotations

from typing import Any

FIELDS: dict[str, dict[str, Any]] = {
    'v1beta1': {
        'admissionFairSharing': {
            'resourceWeights': None,
            'usageHalfLifeTime': None,
            'usageSamplingInterval': None,
        },
        'clientConnection': {
            'burst': None,
            'qps': None,
        },
        'controller': {
            'cacheSyncTimeout': None,
            'groupKindConcurrency': None,
        },
        'fairSharing': {
            'enable': None,
            'preemptionStrategies': None,
        },
        'featureGates': None,
        'health': {
            'healthProbeBindAddress': None,
            'livenessEndpointName': None,
            'readinessEndpointName': None,
        },
        'integrations': {
            'externalFrameworks': None,
            'frameworks': None,
            'labelKeysToCopy': None,
            'podOptions': {
                'namespaceSelector': None,
                'podSelector': None,
            },
        },
        'internalCertManagement': {
            'enable': None,
            'webhookSecretName': None,
            'webhookServiceName': None,
        },
        'leaderElection': None,
        'manageJobsWithoutQueueName': None,
        'managedJobsNamespaceSelector': None,
        'metrics': {
            'bindAddress': None,
            'customLabels': {
                '[]': {
                    'name': None,
                    'sourceAnnotationKey': None,
                    'sourceLabelKey': None,
                },
            },
            'enableClusterQueueResources': None,
            'localQueueMetrics': {
                'enable': None,
                'localQueueSelector': None,
            },
        },
        'multiKueue': {
            'dispatcherName': None,
            'externalFrameworks': {
                '[]': {
                    'name': None,
                },
            },
            'gcInterval': None,
            'origin': None,
            'workerLostTimeout': None,
        },
        'namespace': None,
        'objectRetentionPolicies': {
            'workloads': {
                'afterDeactivatedByKueue': None,
                'afterFinished': None,
            },
        },
        'pprofBindAddress': None,
        'queueVisibility': {
            'clusterQueues': {
                'maxCount': None,
            },
            'updateIntervalSeconds': None,
        },
        'resources': {
            'deviceClassMappings': {
                '[]': {
                    'deviceClassNames': None,
                    'name': None,
                },
            },
            'excludeResourcePrefixes': None,
            'transformations': {
                '[]': {
                    'input': None,
                    'multiplyBy': None,
                    'outputs': None,
                    'strategy': None,
                },
            },
        },
        'tls': {
            'cipherSuites': None,
            'curvePreferences': None,
            'minVersion': None,
        },
        'waitForPodsReady': {
            'blockAdmission': None,
            'enable': None,
            'recoveryTimeout': None,
            'requeuingStrategy': {
                'backoffBaseSeconds': None,
                'backoffLimitCount': None,
                'backoffMaxSeconds': None,
                'timestamp': None,
            },
            'timeout': None,
        },
        'webhook': {
            'certDir': None,
            'host': None,
            'port': None,
        },
    },
    'v1beta2': {
        'admissionFairSharing': {
            'resourceWeights': None,
            'usageHalfLifeTime': None,
            'usageSamplingInterval': None,
        },
        'clientConnection': {
            'burst': None,
            'qps': None,
        },
        'controller': {
            'cacheSyncTimeout': None,
            'groupKindConcurrency': None,
        },
        'fairSharing': {
            'preemptionStrategies': None,
        },
        'featureGates': None,
        'health': {
            'healthProbeBindAddress': None,
            'livenessEndpointName': None,
            'readinessEndpointName': None,
        },
        'integrations': {
            'externalFrameworks': None,
            'frameworks': None,
            'labelKeysToCopy': None,
        },
        'internalCertManagement': {
            'enable': None,
            'webhookSecretName': None,
            'webhookServiceName': None,
        },
        'leaderElection': None,
        'manageJobsWithoutQueueName': None,
        'managedJobsNamespaceSelector': None,
        'metrics': {
            'bindAddress': None,
            'customLabels': {
                '[]': {
                    'name': None,
                    'sourceAnnotationKey': None,
                    'sourceKind': None,
                    'sourceLabelKey': None,
                    'trackedValues': None,
                },
            },
            'enableClusterQueueResources': None,
            'localQueueMetrics': {
                'enable': None,
                'localQueueSelector': None,
            },
        },
        'multiKueue': {
            'clusterProfile': {
                'accessProviders': {
                    '[]': {
                        'execConfig': None,
                        'name': None,
                    },
                },
                'credentialsProviders': None,
            },
            'dispatcherName': None,
            'externalFrameworks': {
                '[]': {
                    'name': None,
                },
            },
            'gcInterval': None,
            'incrementalDispatcherConfig': {
                'stepSize': None,
            },
            'origin': None,
            'workerLostTimeout': None,
        },
        'namespace': None,
        'objectRetentionPolicies': {
            'workloads': {
                'afterDeactivatedByKueue': None,
                'afterFinished': None,
            },
        },
        'pprofBindAddress': None,
        'resources': {
            'deviceClassMappings': {
                '[]': {
                    'deviceClassNames': None,
                    'name': None,
                    'sources': {
                        '[]': {
                            'capacity': {
                                'deviceSelector': None,
                                'driver': None,
                                'name': None,
                            },
                            'counter': {
                                'deviceSelector': None,
                                'driver': None,
                                'name': None,
                            },
                        },
                    },
                },
            },
            'excludeResourcePrefixes': None,
            'quotaCheckStrategy': None,
            'transformations': {
                '[]': {
                    'input': None,
                    'multiplyBy': None,
                    'outputs': None,
                    'strategy': None,
                },
            },
        },
        'tls': {
            'cipherSuites': None,
            'curvePreferences': None,
            'minVersion': None,
        },
        'visibilityServer': {
            'bindAddress': None,
            'bindPort': None,
        },
        'waitForPodsReady': {
            'blockAdmission': None,
            'recoveryTimeout': None,
            'requeuingStrategy': {
                'backoffBaseSeconds': None,
                'backoffLimitCount': None,
                'backoffMaxSeconds': None,
                'timestamp': None,
            },
            'timeout': None,
        },
        'webhook': {
            'certDir': None,
            'host': None,
            'port': None,
        },
    },
}
