"""Kueue admissions (``POST /v1/admissions``): Kueue Workloads as gangs, TAS answers.

* :mod:`app.kueue.objects` reads ``kueue.x-k8s.io`` Workloads (v1beta1 and v1beta2) and the
  objects that decide a Workload's flavor and priority (ResourceFlavor, LocalQueue,
  ClusterQueue, WorkloadPriorityClass, AdmissionCheck).
* :mod:`app.kueue.jobs` is Kueue's job integrations (batch/v1 Job, JobSet, the Kubeflow
  jobs, MPIJob): which jobs Kueue manages, the webhooks' checks, and the Workload Kueue
  constructs for a job.
* :mod:`app.kueue.clusterqueue` says whether a ClusterQueue can admit (``inactiveReason``);
  :mod:`app.kueue.admissionchecks` which checks a Workload with quota waits for;
  :mod:`app.kueue.limitrange` applies LimitRanges to Workloads.
* :mod:`app.kueue.levels` picks the topology (a Kueue/KAI ``Topology`` or the HyperNode
  tree's label levels) and turns a ``Topology`` into HyperNodes, hostname level included.
* :mod:`app.kueue.mapping` turns each Workload into a gang of pending pods with the
  topology request mapped onto network-topology constraints.
* :mod:`app.kueue.assignment` writes Kueue's ``topologyAssignment`` (v1beta1 ``domains``,
  v1beta2 ``slices``) and the ``podSetUpdates`` of an AdmissionCheck.
* :mod:`app.kueue.admit` runs the decision and answers per Workload.
"""
