"""KAI-Scheduler's scenario solver and its eviction actions (``{"profile": "kai"}``).

One module per KAI concept, named after it (NVIDIA/KAI-Scheduler, ``pkg/scheduler/``):

* ``jobs`` — the job model: pod sets, status groups, ``GetTasksToAllocate``,
  ``GetTasksToEvict``, the job predicates and the job / task / pod-set orders
  (``api/podgroup_info``, ``plugins/elastic``, ``plugins/taskorder``, ``plugins/subgrouporder``);
* ``queues`` — ``JobsOrderByQueues`` (``actions/utils/job_order_by_queue.go``) over a
  binary heap that re-sifts as Go's ``container/heap`` does, with the proportion plugin's
  ``GetQueueOrderResult`` (``plugins/proportion/queue_order``);
* ``statement`` — KAI's Statement on top of Gangplank's: a pipeline onto the node a task
  was just evicted from un-evicts it (``framework/statement.go``);
* ``allocate`` — ``AllocateJob`` (``actions/common/allocate.go``): node order, fitting
  node (its fit and scores, and the capacity bound ``could_fit``, also in C: ``kai_fit`` /
  ``kai_score`` / ``kai_copies`` in ``app/ingest/kernels.c``), topology node sets, allocate
  vs pipeline;
* ``simulation`` — ``TryToVirtuallyAllocatePreemptorAndGetVictims``
  (``actions/common/action.go``);
* ``scenarios`` — the accumulated scenario builder and its filters
  (``actions/common/solvers/pod_scenario_builder.go``, ``scenario/``,
  ``accumulated_scenario_filters/``);
* ``solver`` — ``JobSolver`` and ``ByPodSolver`` (``actions/common/solvers``);
* ``actions`` — ``preempt``, ``reclaim``, ``consolidation`` and their validators
  (``actions/preempt``, ``actions/reclaim``, ``actions/consolidation``,
  ``plugins/proportion/reclaimable``, ``plugins/minruntime``);
* ``flags`` — the scheduler's flags (the SchedulingShard's ``args``;
  ``cmd/scheduler/app/options``, ``operands/scheduler/resources_for_shard.go``);
* ``gpu_sharing`` — GPU sharing on devices: ``gpu-fraction`` and ``gpu-memory`` pods on GPU groups
  (``api/node_info/gpu_sharing_node_info.go``, ``gpu_sharing/gpuSharing.go``,
  ``FittingGPUs``, ``plugins/gpupack``, ``gpuspread``, ``gpusharingorder``).

The specification these follow, with the Go function for every rule, is
``shared/anchors/kai-solver.md``; where it and KAI's code differ, the code was followed.
"""
