"""KAI's scheduler flags: the SchedulingShard's ``args`` on the ``kai`` profile.

KAI's operator starts each shard's scheduler with flags it writes itself (the scheduler
name, the node-pool label key and value, the queue label key, ...) followed by the shard's
``args`` (``{"flag-name": "value"}``), the later one of a name winning; it passes only the
names the scheduler's flag set defines and drops any other without a word
(``buildArgsList``, pkg/operator/operands/scheduler/resources_for_shard.go). The scheduler
parses each value with pflag (``cmd/scheduler/app/options/options.go``): ``strconv.ParseBool``
for a bool, ``strconv.ParseInt(s, 0, 64)`` for an int, ``time.ParseDuration`` for a
duration; a value it cannot parse stops the scheduler, here a 422 at the argument.

What each flag does to a decision (:data:`FLAGS`):

* applied: ``restrict-node-scheduling`` with ``cpu-worker-node-label-key`` /
  ``gpu-worker-node-label-key`` (only nodes labelled with either are in the snapshot; a pod
  asking for any kind of GPU fits only GPU-labelled nodes, any other pod only CPU-labelled
  ones; a node without the GPU label adds no GPUs to the capacity the queues share),
  ``mig-worker-node-label-key`` (the label that marks a MIG node), ``full-hierarchy-fairness``
  (false: KAI's project-level fairness, :func:`project_level_queues`),
  ``allow-consolidating-reclaim`` (false: reclaim's fairness check counts moved victims too),
  ``max-consolidation-preemptees``, ``use-scheduling-signatures``,
  ``default-staleness-grace-period`` (the consolidation, preempt / reclaim / consolidation and
  stalegangeviction arguments of those names), ``partition-label-value`` (the node pool,
  as the shard's ``partitionLabelValue``) and ``queue-label-key`` (read by the scheduler only
  for DRA claims shared by a queue's pods; the pod-grouper, which groups pods by it, has its
  own flag and keeps KAI's default here), ``resource-reservation-app-label`` (the ``app``
  label value of KAI's GPU reservation pods) and ``nodepool-label-key`` (the label of the
  node-pool selector over Nodes, Queues and PodGroups, ``app.ingest.nodepool``; empty: no
  selector, every object is the shard's; the pod-grouper copies pods' node-pool label under
  its own flag, KAI's default);
* taken at its default only (another value: a 422, ``not-implemented``): ``scheduler-name``
  (the pod-grouper, which decides which pods get a PodGroup, has its own flag);
* taken, with a warning that the answer is as without them: ``schedule-csi-storage`` true
  (CSI storage capacity is not modelled), ``detailed-fit-errors`` (messages only),
  ``feature-gates`` (Kubernetes feature gates: the answer is with their defaults);
* no effect on a decision (a warning names them): the scheduler's service, metrics,
  profiling, logging, API-client and status-writer flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import gostrconv
from app.ingest.draft import Draft
from app.kueue.jobs import label_key_errors
from app.model.cluster import KaiResource, Queue

#: KAI's defaults (pkg/common/constants): the node role labels and the queue label
CPU_WORKER_LABEL = "node-role.kubernetes.io/cpu-worker"
GPU_WORKER_LABEL = "node-role.kubernetes.io/gpu-worker"
MIG_WORKER_LABEL = "node-role.kubernetes.io/mig-enabled"
QUEUE_LABEL = "kai.scheduler/queue"
RESERVATION_APP = "kai-resource-reservation"
NODE_POOL_LABEL = "kai.scheduler/node-pool"

#: Each flag of the scheduler's flag set: (pflag type, default, effect). Effects: ``applied``,
#: ``default-only`` (another value is refused), ``as-default`` (another value is taken
#: with a warning that the answer is as with the default), ``none`` (no effect on a
#: decision).
FLAGS: dict[str, tuple[str, Any, str]] = {
    "scheduler-name": ("string", "kai-scheduler", "default-only"),
    "namespace": ("string", "kai-scheduler", "none"),
    "metrics-namespace": ("string", "kai", "none"),
    "resource-reservation-app-label": ("string", RESERVATION_APP, "applied"),
    "restrict-node-scheduling": ("bool", False, "applied"),
    "nodepool-label-key": ("string", NODE_POOL_LABEL, "applied"),
    "queue-label-key": ("string", QUEUE_LABEL, "applied"),
    "partition-label-value": ("string", "", "applied"),
    "scheduler-conf": ("string", "", "none"),
    "schedule-period": ("duration", 10**9, "none"),
    "leader-elect": ("bool", False, "none"),
    "version": ("bool", True, "none"),
    "listen-address": ("string", ":8080", "none"),
    "enable-profiler": ("bool", False, "none"),
    "profiler-port": ("string", "8182", "none"),
    "pyroscope-address": ("string", "", "none"),
    "pyroscope-mutex-profiler-rate": ("int", 5, "none"),
    "pyroscope-block-profiler-rate": ("int", 5, "none"),
    "v": ("int", 3, "none"),
    "max-consolidation-preemptees": ("int", 16, "applied"),
    "qps": ("int", 50, "none"),
    "burst": ("int", 300, "none"),
    "detailed-fit-errors": ("bool", False, "as-default"),
    "update-pod-eviction-condition": ("bool", False, "none"),
    "schedule-csi-storage": ("bool", False, "as-default"),
    "use-scheduling-signatures": ("bool", True, "applied"),
    "full-hierarchy-fairness": ("bool", True, "applied"),
    "allow-consolidating-reclaim": ("bool", True, "applied"),
    "num-of-status-recording-workers": ("int", 5, "none"),
    "default-staleness-grace-period": ("duration", 60 * 10**9, "applied"),
    "plugin-server-port": ("int", 8081, "none"),
    "cpu-worker-node-label-key": ("string", CPU_WORKER_LABEL, "applied"),
    "gpu-worker-node-label-key": ("string", GPU_WORKER_LABEL, "applied"),
    "mig-worker-node-label-key": ("string", MIG_WORKER_LABEL, "applied"),
    "feature-gates": ("string", "", "as-default"),
}

#: What the ``as-default`` flags' other values mean for the answer
_AS_DEFAULT = {
    "detailed-fit-errors": "KAI's per-node fit errors in its events and conditions; the answer's messages are Gangplank's",
    "schedule-csi-storage": "KAI's scheduling of CSI storage claims by the storage capacity they need is not modelled: "
                            "the answer is as with false",
    "feature-gates": "Kubernetes feature gates are not read: the answer is with every gate at its default",
}  # fmt: skip

#: action arguments the flags set: flag -> ((action, argument), ...)
_ACTION_ARGS = {
    "max-consolidation-preemptees": (("consolidation", "maxConsolidationPreemptees"),),
    "use-scheduling-signatures": tuple((a, "useSchedulingSignatures") for a in ("consolidation", "reclaim", "preempt")),
    "default-staleness-grace-period": (("stalegangeviction", "defaultStalenessGracePeriod"),),
}

_INT_BASE = {"b": 2, "o": 8, "x": 16}


def parse_int_base0(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)`` (pflag's int), None where Go errs: an optional sign,
    then ``0b`` / ``0o`` / ``0x`` or a leading ``0`` (octal) prefix, ``_`` only between
    digits or after a prefix (``underscoreOK``)."""
    s = text
    sign = 1
    if s[:1] in ("+", "-"):
        sign, s = (-1 if s[0] == "-" else 1), s[1:]
    if not s:
        return None
    base, digits = 10, s
    if s[0] == "0" and len(s) > 1:
        if len(s) >= 3 and s[1].lower() in _INT_BASE:
            base, digits = _INT_BASE[s[1].lower()], s[2:]
        else:
            base, digits = 8, s[1:]
    value, underscores = 0, False
    for ch in digits:
        if ch == "_":
            underscores = True
            continue
        d = int(ch, 36) if ch.isascii() and ch.isalnum() else 99
        if d >= base:
            return None
        value = value * base + d
        if value > 2**63:
            return None
    if underscores and not _underscore_ok(text):
        return None
    value *= sign
    return value if -(2**63) <= value < 2**63 else None


def _underscore_ok(s: str) -> bool:
    """Go's ``underscoreOK``: each ``_`` follows a digit or the base prefix and precedes a digit."""
    if s[:1] in ("+", "-"):
        s = s[1:]
    saw, i, hexa = "^", 0, False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in _INT_BASE:
        saw, i, hexa = "0", 2, s[1].lower() == "x"
    for ch in s[i:]:
        if "0" <= ch <= "9" or (hexa and "a" <= ch.lower() <= "f"):
            saw = "0"
        elif ch == "_":
            if saw != "0":
                return False
            saw = "_"
        else:
            if saw == "_":
                return False
            saw = "!"
    return saw != "_"


def _value(kind: str, raw: str) -> Any:
    """A flag's value as pflag parses it, None where it errs."""
    if kind == "bool":
        return gostrconv.parse_bool(raw)
    if kind == "int":
        return parse_int_base0(raw)
    if kind == "duration":
        try:
            return gostrconv.parse_duration(raw)
        except ValueError:
            return None
    return raw


def _gate_ok(item: str) -> bool:
    """One ``Gate=value`` of ``--feature-gates`` (``featureGate.Set``: an empty item skipped,
    a bool by ``strconv.ParseBool``, spaces around each part trimmed); which gates exist is
    not checked."""
    if not item:
        return True
    name, eq, value = item.partition("=")
    return bool(eq) and bool(gostrconv.trim_space(name)) and gostrconv.parse_bool(gostrconv.trim_space(value)) is not None


@dataclass(frozen=True, slots=True)
class KaiFlags:
    """The scheduler flags a ``kai`` decision applies (KAI's defaults unless ``args`` set them)."""

    restrict_node_scheduling: bool = False
    cpu_worker_label: str = CPU_WORKER_LABEL
    gpu_worker_label: str = GPU_WORKER_LABEL
    mig_worker_label: str = MIG_WORKER_LABEL
    queue_label: str = QUEUE_LABEL
    reservation_app: str = RESERVATION_APP
    nodepool_label: str = NODE_POOL_LABEL
    full_hierarchy_fairness: bool = True
    allow_consolidating_reclaim: bool = True


DEFAULT = KaiFlags()


@dataclass(slots=True)
class ShardArgs:
    """A SchedulingShard's ``args`` as read: the flags applied, the action arguments they set,
    the node pool they name (None: not set) and the warnings they give."""

    flags: KaiFlags
    action_args: dict[tuple[str, str], Any]
    partition: str | None
    warnings: list[str]


def read_args(raw: Any, ptr: str) -> ShardArgs:
    """The SchedulingShard's ``args`` ({flag: value}, the CRD's ``map[string]string``)."""
    if not isinstance(raw, dict):
        raise InputError("args must be an object of flag names to values (the SchedulingShard's map[string]string)", ptr)
    applied: dict[str, Any] = {}
    warnings: list[str] = []
    ignored: list[str] = []
    none: list[str] = []
    for name in sorted(raw, key=str):
        where = join_pointer(ptr, str(name))
        value = raw[name]
        if not isinstance(value, str):
            raise InputError("a flag's value is a string (the SchedulingShard's map[string]string)", where)
        spec = FLAGS.get(name)
        if spec is None:
            ignored.append(name)
            continue
        kind, default, effect = spec
        parsed = _value(kind, value)
        if parsed is None:
            what = {"bool": "true or false (strconv.ParseBool)", "int": "an integer (strconv.ParseInt)",
                    "duration": "a Go duration such as '90s'"}[kind]  # fmt: skip
            raise InputError(f"flag --{name}={value} is not {what}: KAI's scheduler would not start", where,
                             kind="invalid-config")  # fmt: skip
        if name == "feature-gates" and value and not all(_gate_ok(g) for g in value.split(",")):
            raise InputError(f"flag --feature-gates={value} is not a list of Gate=true|false: KAI's scheduler would "
                             "not start", where, kind="invalid-config")  # fmt: skip
        if name == "nodepool-label-key" and parsed and (bad := label_key_errors(parsed)):
            raise InputError(f"flag --nodepool-label-key={value}: {bad[0]}: KAI's scheduler would not start (its node-pool "
                             "selector)", where, kind="invalid-config")  # fmt: skip
        if effect == "default-only" and parsed != default:
            raise InputError(f"flag --{name}={value}: Gangplank reads the snapshot with KAI's default ({default!r}); "
                             "another value is not modelled", where, kind="not-implemented")  # fmt: skip
        if effect == "as-default" and parsed != default:
            warnings.append(f"SchedulingShard args: --{name}={value}: {_AS_DEFAULT[name]}")
        if effect == "none":
            none.append(name)
        applied[name] = parsed
    if none:
        warnings.append(f"SchedulingShard args: {', '.join('--' + n for n in none)}: the scheduler's own running "
                        "(service, metrics, logging, API client, status writers), no effect on a decision")  # fmt: skip
    if ignored:
        warnings.append(f"SchedulingShard args: {', '.join(repr(n) for n in ignored)}: not flags of KAI's scheduler; "
                        "KAI's operator drops them (buildArgsList passes only the scheduler's own flags)")  # fmt: skip
    get = applied.get
    flags = KaiFlags(
        restrict_node_scheduling=get("restrict-node-scheduling", False),
        cpu_worker_label=get("cpu-worker-node-label-key", CPU_WORKER_LABEL),
        gpu_worker_label=get("gpu-worker-node-label-key", GPU_WORKER_LABEL),
        mig_worker_label=get("mig-worker-node-label-key", MIG_WORKER_LABEL),
        queue_label=get("queue-label-key", QUEUE_LABEL),
        reservation_app=get("resource-reservation-app-label", RESERVATION_APP),
        nodepool_label=get("nodepool-label-key", NODE_POOL_LABEL),
        full_hierarchy_fairness=get("full-hierarchy-fairness", True),
        allow_consolidating_reclaim=get("allow-consolidating-reclaim", True),
    )
    action_args: dict[tuple[str, str], Any] = {}
    for name, targets in _ACTION_ARGS.items():
        if name in applied:
            v = applied[name]
            if FLAGS[name][0] == "duration":
                v = gostrconv.seconds(v)
            for target in targets:
                action_args[target] = v
    return ShardArgs(flags, action_args, get("partition-label-value"), warnings)


#: The queue KAI puts above every queue with a parent under project-level fairness
#: (``getDefaultParentQueue``): no quota, no limit, over-quota weight 1 on each resource
PROJECT_LEVEL_PARENT = "default"


def project_level_queues(queues: list[Queue], now: float) -> tuple[list[Queue], list[str]]:
    """KAI's project-level fairness (``--full-hierarchy-fairness=false``, ``snapshotQueues``):
    the queues with a parent become the children of one ``default`` queue without quota or
    limit (created now, priority 100), whatever their parent was; the queues without a parent
    are not in the snapshot (their jobs are in no queue). Returns the queues and the names
    left out."""
    unlimited = KaiResource(quota=-1.0, limit=-1.0, over_quota_weight=1.0)
    out = {PROJECT_LEVEL_PARENT: Queue(name=PROJECT_LEVEL_PARENT, source="kai", priority=100, created=now,
                                       kai={"gpu": unlimited, "cpu": unlimited, "memory": unlimited})}  # fmt: skip
    dropped = []
    for q in queues:
        if q.parent:
            q.parent = PROJECT_LEVEL_PARENT
            out[q.name] = q  # (a queue named default with a parent takes the place of KAI's, as in its map)
        else:
            dropped.append(q.name)
    return list(out.values()), sorted(dropped)


def snapshot_view(d: Draft, flags: KaiFlags, now: float) -> None:
    """What KAI's cache lists under the flags: with ``restrict-node-scheduling`` only the
    Nodes labelled with the CPU or the GPU worker label (``filterUnmarkedNodes``; the pods on
    the others are on no node the scheduler has); under project-level fairness the queues
    of :func:`project_level_queues`. Each named in the answer's notes."""
    if flags.restrict_node_scheduling:
        marked = (flags.cpu_worker_label, flags.gpu_worker_label)
        gone = sorted(n.name for n in d.nodes if not any(k in n.labels for k in marked))
        if gone:
            out = set(gone)
            d.nodes = [n for n in d.nodes if n.name not in out]
            d.pool_nodes.update(gone)
            d.notes.append(f"{len(gone)} Node(s) (e.g. {gone[0]}) have neither {flags.cpu_worker_label} nor "
                           f"{flags.gpu_worker_label}: with --restrict-node-scheduling KAI's scheduler does not list "
                           "them, so the pods on them are left out")  # fmt: skip
    if not flags.full_hierarchy_fairness:
        d.queues, dropped = project_level_queues(d.queues, now)
        if dropped:
            names = ", ".join(repr(n) for n in dropped[:5]) + (f" and {len(dropped) - 5} more" if len(dropped) > 5 else "")
            d.notes.append(f"--full-hierarchy-fairness=false (project-level fairness): KAI's scheduler puts every queue "
                           f"with a parent under one unlimited queue {PROJECT_LEVEL_PARENT!r} and lists no queue without "
                           f"a parent, so the jobs of {names} are in no queue")  # fmt: skip
