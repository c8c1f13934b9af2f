"""The request envelope: snapshot (objects and/or native cluster), config and options."""

from __future__ import annotations

import math
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.errors import InputError, LimitError, join_pointer
from app.ingest import reader as r
from app.ingest.build import build
from app.ingest.draft import Draft
from app.ingest.body import decode
from app.ingest.kube import decode_objects, read_objects, realize_vcjobs
from app.ingest.metalimits import MetaLimits, check_native
from app.ingest.numatopology import PodSpecs
from app.ingest.podrequest import KaiRequest
from app.ingest.native import read_native
from app.model.cluster import Cluster
from app.model.nodeshard import DEFAULT_SHARD_NAME
from app.settings import Settings

OPTION_KEYS = frozenset({"explain", "deadlineMs", "now", "topology", "solver", "strictConfig", "schedulerNames",
                         "schedulerShardingMode", "schedulerShardingName", "kaiQueueUsage"})  # fmt: skip
#: At most this many queues in ``options.kaiQueueUsage`` (and resources per queue).
MAX_USAGE_QUEUES, MAX_USAGE_RESOURCES = 10_000, 16
#: At most this many ``options.schedulerNames`` (Volcano's ``--scheduler-name`` flags).
MAX_SCHEDULER_NAMES = 16


@dataclass(slots=True)
class Options:
    explain: bool
    deadline_ms: int
    now: float
    topology: str | None
    solver: str
    strict_config: bool = False
    scheduler_names: tuple[str, ...] | None = None
    #: Volcano's ``--scheduler-sharding-mode`` and ``--scheduler-sharding-name`` (``app.model.nodeshard``)
    sharding: tuple[str, str] | None = None
    #: ``options.kaiQueueUsage``: KAI's usage database's answer (``ClusterUsage``: queue -> resource
    #: -> usage normalised to the cluster's capacity), for the kai profile's time-based fairshare
    kai_usage: dict[str, dict[str, float]] | None = None


@dataclass(slots=True)
class Request:
    cluster: Cluster
    config: Any
    options: Options
    envelope: dict[str, Any]
    #: the pods of ``envelope["objects"]`` by pointer, for plugins that read a pod's
    #: containers (``Cluster.pod_specs`` refers to it weakly)
    pod_specs: PodSpecs | None = None


def read_options(raw: Any, settings: Settings) -> Options:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InputError("'options' must be an object", "/options")
    for k in sorted(raw):
        if k not in OPTION_KEYS:
            raise InputError(
                f"unknown option {k!r} (known: {', '.join(sorted(OPTION_KEYS))})", f"/options/{k}", kind="unknown-field"
            )
    deadline = r.integer(
        raw, "deadlineMs", "/options", None, default=settings.default_deadline_ms, minimum=1,
        maximum=settings.max_deadline_ms,
    )  # fmt: skip
    now_raw = raw.get("now")
    now = r.timestamp(now_raw, "/options/now", None) if now_raw is not None else time.time()
    solver = r.string(raw, "solver", "/options", None, default="heuristic")
    if solver not in ("heuristic", "exact"):
        raise InputError("solver must be 'heuristic' or 'exact'", "/options/solver")
    return Options(
        explain=bool(r.boolean(raw, "explain", "/options", None, default=False)),
        deadline_ms=deadline or settings.default_deadline_ms,
        now=now,
        topology=r.string(raw, "topology", "/options", None) or None,
        solver=solver,
        strict_config=bool(r.boolean(raw, "strictConfig", "/options", None, default=False)),
        scheduler_names=_scheduler_names(raw.get("schedulerNames")),
        sharding=_sharding(raw),
        kai_usage=_kai_usage(raw.get("kaiQueueUsage")),
    )


def _kai_usage(raw: Any) -> dict[str, dict[str, float]] | None:
    """``options.kaiQueueUsage`` in KAI's ``ClusterUsage`` form: ``{"queues": {queue: {resource:
    usage}}}``, each usage a finite number (KAI's ``QueueUsage``, float64)."""
    if raw is None:
        return None
    ptr = "/options/kaiQueueUsage"
    if not isinstance(raw, dict) or set(raw) - {"queues"}:
        raise InputError("kaiQueueUsage is KAI's ClusterUsage: an object with 'queues' only", ptr)
    queues = raw.get("queues", {})
    if not isinstance(queues, dict):
        raise InputError("'queues' must map queue names to their usage", join_pointer(ptr, "queues"))
    if len(queues) > MAX_USAGE_QUEUES:
        raise LimitError(f"kaiQueueUsage names more than {MAX_USAGE_QUEUES} queues", join_pointer(ptr, "queues"))
    out: dict[str, dict[str, float]] = {}
    for name in sorted(queues):
        per, qp = queues[name], join_pointer(ptr, "queues", name)
        if not isinstance(per, dict) or len(per) > MAX_USAGE_RESOURCES:
            raise InputError(f"a queue's usage is an object of at most {MAX_USAGE_RESOURCES} resource names to numbers", qp)
        usage: dict[str, float] = {}
        for res in sorted(per):
            v = per[res]
            try:
                f = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan
            except OverflowError:  # (an integer past float64)
                f = math.nan
            if not math.isfinite(f):
                raise InputError(f"usage of {res!r} must be a finite number", join_pointer(qp, res))
            usage[res] = f
        out[name] = usage
    return out


def _sharding(raw: dict[str, Any]) -> tuple[str, str] | None:
    """``options.schedulerShardingMode`` (Volcano's default ``none``) and
    ``options.schedulerShardingName`` (default ``volcano``); None when neither is set."""
    if raw.get("schedulerShardingMode") is None and raw.get("schedulerShardingName") is None:
        return None
    mode = r.string(raw, "schedulerShardingMode", "/options", None, default="none")
    name = r.string(raw, "schedulerShardingName", "/options", None, default=DEFAULT_SHARD_NAME)
    if len(mode) > 64:
        raise InputError("a sharding mode is none, hard or soft", "/options/schedulerShardingMode")
    if not 0 < len(name) <= 253:
        raise InputError("a shard name is a non-empty string of at most 253 characters", "/options/schedulerShardingName")
    return mode, name


def _scheduler_names(raw: Any) -> tuple[str, ...] | None:
    """``options.schedulerNames``: 1 to :data:`MAX_SCHEDULER_NAMES` names of at most 253
    characters (a DNS subdomain's length), none empty."""
    ptr = "/options/schedulerNames"
    if raw is None:
        return None
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_SCHEDULER_NAMES:
        raise InputError(f"schedulerNames must be a list of 1 to {MAX_SCHEDULER_NAMES} scheduler names", ptr)
    for i, name in enumerate(raw):
        if not isinstance(name, str) or not 0 < len(name) <= 253:
            raise InputError("a scheduler name is a non-empty string of at most 253 characters", f"{ptr}/{i}")
    return tuple(dict.fromkeys(raw))


def decision_envelope(raw: bytes, settings: Settings) -> dict[str, Any]:
    """A JSON body as ``/v1/decisions`` reads it: Kubernetes objects with their pods read
    from the text where :func:`~app.ingest.kube.decode_objects` answers, else decoded."""
    return decode_objects(raw, settings) or decode(raw, "application/json", max_yaml_nodes=settings.max_yaml_nodes)


def read_request(
    envelope: dict[str, Any], settings: Settings, *, extend: Callable[[Draft, Options], str | None] | None = None,
    hold: bool = False, podgroups: bool | None = None, kai_podgroups: bool | None = None,
) -> Request:
    """``extend`` (``POST /v1/admissions``) adds records to the draft before names are
    resolved and may return the topology to build (else ``options.topology``); ``hold``
    (``/v1/simulate``): the pods Volcano Jobs' controller makes later are built and held
    (``Cluster.held``); ``podgroups``: whether Volcano's PodGroup controller runs (None:
    where the request's config is the volcano profile or a volcano-scheduler.conf; False
    where every pod is taken as the profile's own: the extender, admissions);
    ``kai_podgroups``: whether KAI's pod-grouper runs (None: under the ``kai`` profile,
    unless ``podgroups`` is False)."""
    options = read_options(envelope.get("options"), settings)
    if "objects" not in envelope and "cluster" not in envelope:
        raise InputError("the request needs 'objects' (Kubernetes objects) or 'cluster' (native form)", "")
    draft = Draft()
    limits = MetaLimits.of(settings)
    read = 0
    kai_runs = kai_podgroups if kai_podgroups is not None else (None if podgroups is not False else False)
    cfg = None
    if envelope.get("config") is not None:
        from app.service import config_if_valid  # (the service imports ingest)

        cfg = config_if_valid(envelope.get("config"))
    kai = kai_runs is not False and cfg is not None and cfg.profile == "kai"
    # Volcano's cache takes a HyperNode tree it cannot build and decides without it
    volcano_cache = cfg is not None and (cfg.profile == "volcano" or cfg.raw)
    draft.hypernodes_lenient = draft.keep_vanished = volcano_cache
    if kai:  # (the node-pool selector's label: KAI's scheduler flag)
        draft.kai_pool_key = cfg.kai_flags.nodepool_label  # type: ignore[union-attr]
    if envelope.get("objects") is not None:
        read = read_objects(envelope["objects"], "/objects", draft, max_objects=settings.max_objects, limits=limits)
        if kai:
            kai_pod_requests(draft)
    if envelope.get("cluster") is not None:
        check_native(envelope["cluster"], "/cluster", limits)
        read_native(envelope["cluster"], "/cluster", draft, max_objects=settings.max_objects)
    # Volcano Jobs' controller, once the objects and the native records are read (it sees
    # both); ``hold``: it also makes the pods it makes once their PodGroups leave Pending,
    # held out of the cluster; a Job without schedulerName gets the first of
    # ``options.schedulerNames``, one without creationTimestamp is created at ``options.now``
    realize_vcjobs(draft, envelope.get("objects"), read, settings.max_objects, hold,
                   (options.scheduler_names or ("volcano",))[0], options.now)  # fmt: skip
    # Volcano's PodGroup controller, next: a PodGroup for each Kubernetes pod on its own
    # naming one of Volcano's scheduler names (or one per controller owner), and the pod
    # annotated with it, where Volcano's scheduler-name model applies
    if envelope.get("objects") is not None and podgroups is not False:
        from app.ingest.pgcontroller import realize_podgroups

        realize_podgroups(draft, envelope["objects"], options.scheduler_names or ("volcano",), options.now,
                          envelope.get("config"), podgroups, limits)  # fmt: skip
    # KAI's pod-grouper, next: a PodGroup for each kai-scheduler pod without one whose top
    # owner the snapshot holds (one per owner, or per pod, as the owner's kind says), and
    # the pod annotated with it, under the kai profile
    if envelope.get("objects") is not None and kai_runs is not False:
        from app.ingest.kaigrouper import realize_kai_podgroups

        # (the sub-groups of one PodGroup are bounded by the objects of the request: their pods)
        realize_kai_podgroups(draft, envelope["objects"], options.now, envelope.get("config"), kai_runs, limits,
                              min(read, settings.max_objects))  # fmt: skip
    if kai:
        from app.ingest.kube import kai_unshared_refusals
        from app.ingest.nodepool import shard_view

        from app.kai.flags import snapshot_view
        from app.kai.mig import amd_gpus_as_gpus

        amd_gpus_as_gpus(draft)  # (the pods the pod-grouper made too)
        kai_unshared_refusals(draft)
        draft.unknown_holds = False  # (KAI's node adds only its "active used" pods)
        if envelope.get("objects") is not None:  # (after the pod-grouper: it sees every PodGroup)
            shard_view(draft, cfg.partition)  # type: ignore[union-attr]
        snapshot_view(draft, cfg.kai_flags, options.now)  # type: ignore[union-attr]
    if volcano_cache and draft.oversubscription:  # (Volcano's NodeInfo adds the nodes' oversubscription)
        from app.ingest import oversubscription

        oversubscription.apply(draft)
    topology_name = options.topology
    if extend is not None:
        draft.realize_blocks()  # ``extend`` reads and adds pod records
        topology_name = extend(draft, options) or topology_name
    cluster = build(
        draft, now=options.now, topology_name=topology_name, max_hypernode_depth=settings.max_hypernode_depth
    )
    specs = None
    if envelope.get("objects") is not None:
        specs = PodSpecs(envelope["objects"])
        cluster.pod_specs = weakref.ref(specs)  # (the request holds it: the cluster outlives no body)
    return Request(cluster=cluster, config=envelope.get("config"), options=options, envelope=envelope, pod_specs=specs)


def kai_pod_requests(draft: Draft) -> None:
    """Under the ``kai`` profile, the pods whose request KAI computes otherwise (a sidecar,
    pod-level resources: :class:`~app.ingest.podrequest.KaiRequest`) take KAI's."""
    for p in draft.pods:
        if type(p.req) is KaiRequest:
            p.req = p.req.kai
