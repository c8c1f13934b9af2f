"""Scheduler configuration: Volcano's ``volcano-scheduler.conf`` shape, or a profile.

Accepted forms of the request's ``config``:

* omitted: Gangplank's default (gang-aware, topology-aware; see ``DEFAULT_CONF``);
* a YAML string or an object in Volcano's shape: ``actions`` (comma-separated),
  ``tiers[].plugins[]`` (``name``, ``arguments``, every ``enable*`` flag, unset flags
  meaning enabled, as Volcano's loader applies them), ``configurations[]`` (per-action
  arguments);
* ``{"profile": "volcano" | "kai" | "gangplank", "actions": "..."}``: a project's default
  actions and plugins; ``actions`` replaces only the action list; with ``kai``,
  ``placementStrategy`` ({gpu, cpu}: binpack or spread), ``partitionLabelValue`` (the node
  pool: ``app.ingest.nodepool``), ``args`` (the scheduler's flags: ``app.kai.flags``) and the
  others below are KAI's SchedulingShard fields.

Loaded as Volcano's loader reads it (``UnmarshalSchedulerConf``, ``OpenSession``): an
unknown action is a 422 naming the word (Volcano rejects such a config); a plugin Volcano
would not find is skipped with a warning (Volcano logs and skips it); a plugin Volcano or
KAI ships that Gangplank does not model is accepted with a warning saying what that means
for the answer (``app.plugins.volcano_unmodelled``); flags are read only in Volcano's exact
spellings (``enablePreemptable``, ``enabledVictim``, ...): another spelling is ignored, as
Volcano's YAML decoder ignores it, with a warning naming the right one; other unknown keys
are ignored with a warning. ``strict`` (the request's ``options.strictConfig``) turns each
of those warnings into a 422. Arguments no plugin or action read during the decision are
listed in the warnings afterwards (:func:`unread_arguments`). ``enableHierarchy`` is read by
drf (hierarchical DRF: ``app.plugins.hdrf``), capacity and nodegroup.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import gostrconv
from app.ingest.body import parse_yaml_text
from app.kai.flags import DEFAULT as DEFAULT_KAI_FLAGS
from app.kai.flags import KaiFlags, read_args

#: Volcano's loader flags (``conf.PluginOption``), each in the one spelling Volcano reads:
#: some are ``enable...``, some ``enabled...``.
FLAG_KEY = {
    "JobOrder": "enableJobOrder", "Hierarchy": "enableHierarchy", "JobReady": "enableJobReady",
    "JobPipelined": "enableJobPipelined", "TaskOrder": "enableTaskOrder", "Preemptable": "enablePreemptable",
    "Reclaimable": "enableReclaimable", "Preemptive": "enablePreemptive", "QueueOrder": "enableQueueOrder",
    "ClusterOrder": "enabledClusterOrder", "Predicate": "enablePredicate", "BestNode": "enableBestNode",
    "NodeOrder": "enableNodeOrder", "TargetJob": "enableTargetJob", "ReservedNodes": "enableReservedNodes",
    "JobEnqueued": "enableJobEnqueued", "Victim": "enabledVictim", "JobStarving": "enableJobStarving",
    "Overused": "enabledOverused", "Allocatable": "enabledAllocatable", "HyperNodeOrder": "enabledHyperNodeOrder",
    "SubJobReady": "enabledSubJobReady", "SubJobPipelined": "enabledSubJobPipelined",
    "SubJobOrder": "enabledSubJobOrder", "HyperNodeGradient": "enabledHyperNodeGradient",
}  # fmt: skip
FLAGS = tuple(FLAG_KEY)
_FLAG_KEYS = {key: flag for flag, key in FLAG_KEY.items()}
#: The other spelling of each flag (and ``NamespaceOrder``, which Volcano's struct lacks):
#: ignored, as Volcano ignores them, with a warning naming the key Volcano reads.
_NEAR_MISS = {("enabled" + k[6:] if not k.startswith("enabled") else "enable" + k[7:]): k for k in _FLAG_KEYS}
_NEAR_MISS |= {"enableNamespaceOrder": "", "enabledNamespaceOrder": ""}


class TrackedArgs(dict[str, Any]):
    """Plugin or action arguments that remember which keys were read (any lookup, or
    iterating them all), so those never read can be named in the answer's warnings."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.read: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.read.add(key)  # type: ignore[arg-type]
        return super().__contains__(key)

    def _all(self) -> None:
        self.read.update(dict.keys(self))

    def keys(self) -> Any:
        self._all()
        return super().keys()

    def items(self) -> Any:
        self._all()
        return super().items()

    def values(self) -> Any:
        self._all()
        return super().values()

    def __iter__(self) -> Any:
        self._all()
        return super().__iter__()

    def unread(self) -> list[str]:
        return sorted(k for k in dict.keys(self) if k not in self.read)

VOLCANO_CONF = """
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""

# KAI's gang rules (minMember, sub-group minimums, no partial binding) live in its core,
# not in a plugin; here the gang plugin carries them, first in the list.
KAI_CONF = """
actions: "allocate, consolidation, reclaim, preempt, stalegangeviction"
tiers:
- plugins:
  - name: gang
  - name: predicates
  - name: proportion
  - name: priority
  - name: nodeavailability
  - name: resourcetype
  - name: podaffinity
  - name: elastic
  - name: kubeflow
  - name: ray
  - name: subgrouporder
  - name: taskorder
  - name: nominatednode
  - name: dynamicresources
  - name: minruntime
  - name: topology
  - name: snapshot
  - name: gpupack
  - name: nodeplacement
    arguments:
      cpu: binpack
      gpu: binpack
  - name: gpusharingorder
"""

#: Gangplank's default: gang- and topology-aware allocation with gang-aware eviction.
DEFAULT_CONF = """
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
  - name: network-topology-aware
"""

PROFILES = {"volcano": VOLCANO_CONF, "kai": KAI_CONF, "gangplank": DEFAULT_CONF}


@dataclass(slots=True)
class PluginOption:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    flags: dict[str, bool] = field(default_factory=dict)
    pointer: str = ""  # where the request wrote it ("" for a profile's own plugins)
    modelled: bool = True  # False: accepted with a warning, decides nothing

    def enabled(self, flag: str) -> bool:
        """Unset flags are enabled, as Volcano's ``ApplyPluginConfDefaults`` makes them."""
        return self.flags.get(flag, True)


@dataclass(slots=True)
class SchedulerConfig:
    actions: list[str]
    tiers: list[list[PluginOption]]
    action_args: dict[str, dict[str, Any]]
    profile: str = "gangplank"
    #: The request wrote a ``volcano-scheduler.conf`` itself (no profile): decided as
    #: Volcano decides, Gangplank's own retrofits off unless asked for by name.
    raw: bool = False
    #: What the loader accepted but does not apply (unknown plugins and keys, unmodelled
    #: plugins, flag spellings Volcano does not read), for the answer's warnings.
    warnings: list[str] = field(default_factory=list)
    #: Where the request wrote each action's arguments.
    action_pointers: dict[str, str] = field(default_factory=dict)
    #: The ``kai`` profile's node pool: KAI's SchedulingShard ``partitionLabelValue`` ("":
    #: the default shard, whose objects carry no ``kai.scheduler/node-pool`` label)
    partition: str = ""
    #: the ``kai`` profile's ``queueDepthPerAction`` (the SchedulingShard's): per action, the
    #: most jobs a leaf queue of its job order holds (``app.kai.queues.JobsOrderByQueues``)
    queue_depth: dict[str, int] = field(default_factory=dict)
    #: the ``kai`` profile's scheduler flags (the SchedulingShard's ``args``: ``app.kai.flags``)
    kai_flags: KaiFlags = DEFAULT_KAI_FLAGS
    #: The ``kai`` profile's SchedulingShard has a ``usageDBConfig``: KAI collects the queues' past
    #: usage (``collectUsageData``), which the request gives as ``options.kaiQueueUsage``
    usage_db: bool = False

    def plugin(self, name: str) -> PluginOption | None:
        for tier in self.tiers:
            for p in tier:
                if p.name == name:
                    return p
        return None


def _parse_yaml(text: str, ptr: str) -> Any:
    # the bounded loader of request bodies: aliases cannot expand past a limit, keys are strings
    return parse_yaml_text(text, ptr, "config")


def split_actions(raw: Any, ptr: str, known: frozenset[str], aliases: dict[str, str],
                  notes: list[str] | None = None, strict: bool = False) -> list[str]:  # fmt: skip
    """The action names of ``actions``. Volcano finds an action by its exact name; another
    spelling of a known one (``gangPreempt``, ``Allocate``, KAI's ``consolidate``) is taken
    with a note in ``notes`` saying Volcano's loader would reject it (a 422 with ``strict``)."""
    if not isinstance(raw, str):
        raise InputError("'actions' must be a comma-separated string", ptr)
    out = []
    for word in raw.split(","):
        w = word.strip()
        if not w:  # (GetAction("") finds none: Volcano's and KAI's loaders reject the config)
            raise InputError("an empty action name (no 'actions', or a comma too many): Volcano's loader rejects the "
                             "config ('failed to find Action')", ptr, kind="unknown-action")  # fmt: skip
        canonical = aliases.get(w.lower(), w.lower())
        if canonical not in known:
            raise InputError(
                f"unknown action {w!r} (known: {', '.join(sorted(known | set(aliases)))})", ptr, kind="unknown-action"
            )
        if w != canonical and notes is not None:
            message = f"action {w!r} is read as {canonical!r}: Volcano's loader knows it only as {canonical!r} and rejects the config"
            if strict:
                raise InputError(message + " (options.strictConfig)", ptr, kind="unknown-action")
            notes.append(message)
        out.append(canonical)
    return out


def load_config(
    raw: Any,
    *,
    known_actions: frozenset[str],
    action_aliases: dict[str, str],
    known_plugins: frozenset[str],
    ptr: str = "/config",
    unmodelled: dict[str, str] | None = None,
    strict: bool = False,
    partial: dict[str, Callable[[Any], list[tuple[str, str]]]] | None = None,
) -> SchedulerConfig:
    """``unmodelled``: plugin names accepted with a warning (name -> what that means);
    ``partial``: per partially modelled plugin, what names its arguments Gangplank does not
    model ((key, what that means) each; a warning, or a 422 under ``strict``)."""
    again = dict(known_actions=known_actions, action_aliases=action_aliases, known_plugins=known_plugins,
                 unmodelled=unmodelled, strict=strict, partial=partial)  # fmt: skip
    if raw is None:
        cfg = load_config(_parse_yaml(DEFAULT_CONF, ptr), ptr=ptr, **again)  # type: ignore[arg-type]
        _profile_plugins(cfg)
        return cfg
    if isinstance(raw, str):
        raw = _parse_yaml(raw, ptr)
        if raw is None:
            raise InputError("config is empty", ptr)
    if not isinstance(raw, dict):
        raise InputError("config must be an object or a YAML string", ptr)
    if "profile" in raw:
        profile = raw["profile"]
        if not isinstance(profile, str) or profile not in PROFILES:
            raise InputError(
                f"unknown profile {profile!r} (known: {', '.join(sorted(PROFILES))})", join_pointer(ptr, "profile")
            )
        extra = sorted(set(raw) - {"profile", "actions", "configurations", "placementStrategy", "partitionLabelValue",
                                   "minRuntime", "kValue", "queueDepthPerAction", "plugins", "args", "usageDBConfig"})  # fmt: skip
        if extra:
            raise InputError(f"unknown key {extra[0]!r} next to 'profile'", join_pointer(ptr, extra[0]))
        base = _parse_yaml(PROFILES[profile], ptr)
        if "placementStrategy" in raw:
            _placement_strategy(base, raw["placementStrategy"], profile, join_pointer(ptr, "placementStrategy"))
        for key in ("minRuntime", "kValue"):
            if key in raw:
                _shard_argument(base, key, raw[key], profile, join_pointer(ptr, key))
        if "plugins" in raw:
            _shard_plugins(base, raw["plugins"], profile, join_pointer(ptr, "plugins"))
        if isinstance(raw.get("actions"), dict):
            base["actions"] = _shard_actions(base["actions"], raw["actions"], profile, join_pointer(ptr, "actions"))
        elif "actions" in raw:
            base["actions"] = raw["actions"]
        if "configurations" in raw:
            base["configurations"] = raw["configurations"]
        cfg = load_config(base, ptr=ptr, **again)  # type: ignore[arg-type]
        _profile_plugins(cfg)
        cfg.profile = profile
        if "partitionLabelValue" in raw:
            cfg.partition = _partition(raw["partitionLabelValue"], profile, join_pointer(ptr, "partitionLabelValue"))
        if "queueDepthPerAction" in raw:
            cfg.queue_depth = _queue_depth(raw["queueDepthPerAction"], profile, cfg.actions,
                                           join_pointer(ptr, "queueDepthPerAction"))  # fmt: skip
        if "args" in raw:
            _shard_args(cfg, raw["args"], join_pointer(ptr, "args"))
        if "usageDBConfig" in raw:
            _usage_db(cfg, raw["usageDBConfig"], join_pointer(ptr, "usageDBConfig"))
        return cfg
    warnings: list[str] = []

    def ignored(message: str, pointer: str, kind: str = "unknown-field") -> None:
        if strict:
            raise InputError(message + " (options.strictConfig)", pointer, kind=kind)
        warnings.append(message)

    for k in sorted(raw, key=str):
        if k not in ("actions", "tiers", "configurations", "metrics"):
            ignored(f"config key {k!r} is not one Volcano reads: ignored, as Volcano ignores it", join_pointer(ptr, str(k)))
    if raw.get("metrics"):
        warnings.append("config 'metrics' (Volcano's metrics source) has no effect on a decision: ignored")
    actions = split_actions(raw.get("actions", ""), join_pointer(ptr, "actions"), known_actions, action_aliases, warnings, strict)
    tiers_raw = raw.get("tiers") or []
    if not isinstance(tiers_raw, list):
        raise InputError("'tiers' must be a list", join_pointer(ptr, "tiers"))
    tiers: list[list[PluginOption]] = []
    for i, tier in enumerate(tiers_raw):
        tp = join_pointer(ptr, "tiers", i)
        plugins_raw = tier.get("plugins") if isinstance(tier, dict) else None
        if not isinstance(plugins_raw, list):
            raise InputError("a tier needs a 'plugins' list", join_pointer(tp, "plugins"))
        plugins = []
        for j, p in enumerate(plugins_raw):
            pp = join_pointer(tp, "plugins", j)
            if not isinstance(p, dict) or not isinstance(p.get("name"), str):
                raise InputError("a plugin needs a string 'name'", pp)
            name = p["name"]
            if name not in known_plugins:
                ignored(f"plugin {name!r} is not one Volcano or KAI ships: skipped, as Volcano skips a plugin it "
                        f"cannot find", join_pointer(pp, "name"), kind="unknown-plugin")  # fmt: skip
                continue
            if unmodelled and name in unmodelled:
                ignored(f"plugin {name!r} is not modelled by Gangplank: {unmodelled[name]}", join_pointer(pp, "name"),
                        kind="not-implemented")  # fmt: skip
            opt = PluginOption(name=name, pointer=pp, modelled=not (unmodelled and name in unmodelled))
            for k, v in p.items():
                if k in ("name",):
                    continue
                if k == "arguments":
                    if v is not None and not isinstance(v, dict):
                        raise InputError("'arguments' must be a mapping", join_pointer(pp, k))
                    opt.arguments = TrackedArgs(v or {})
                elif k in _FLAG_KEYS:
                    if not isinstance(v, bool):
                        raise InputError(f"'{k}' must be true or false", join_pointer(pp, k))
                    opt.flags[_FLAG_KEYS[k]] = v
                elif k in _NEAR_MISS:
                    right = f": Volcano reads {_NEAR_MISS[k]!r}" if _NEAR_MISS[k] else ""
                    ignored(f"plugin {name}: {k!r} is not a flag Volcano reads{right}; ignored, as Volcano ignores it",
                            join_pointer(pp, str(k)))  # fmt: skip
                else:
                    ignored(f"plugin {name}: key {k!r} is not one Volcano reads; ignored, as Volcano ignores it",
                            join_pointer(pp, str(k)))  # fmt: skip
            if partial and name in partial:
                for key, note in partial[name](opt.arguments):
                    ignored(f"plugin {name}: argument {key}: {note}", join_pointer(pp, "arguments", key),
                            kind="not-implemented")  # fmt: skip
            plugins.append(opt)
        if any(p.name == "drf" and p.flags.get("Hierarchy") for p in plugins) and any(
                p.name == "proportion" for p in plugins):  # (UnmarshalSchedulerConf, per tier)
            raise InputError("proportion and drf with hierarchy enabled conflicts: Volcano's loader rejects the config",
                             join_pointer(tp, "plugins"))  # fmt: skip
        tiers.append(plugins)
    action_args: dict[str, dict[str, Any]] = {}
    action_pointers: dict[str, str] = {}
    confs = raw.get("configurations") or []
    if not isinstance(confs, list):
        raise InputError("'configurations' must be a list", join_pointer(ptr, "configurations"))
    for i, c in enumerate(confs):
        cp = join_pointer(ptr, "configurations", i)
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise InputError("a configuration needs a string 'name'", cp)
        name = action_aliases.get(c["name"].lower(), c["name"].lower())
        if name not in known_actions:
            raise InputError(f"unknown action {c['name']!r}", join_pointer(cp, "name"), kind="unknown-action")
        args = c.get("arguments") or {}
        if not isinstance(args, dict):
            raise InputError("'arguments' must be a mapping", join_pointer(cp, "arguments"))
        for key, value in args.items():
            check_action_arg(key, value, join_pointer(cp, "arguments", str(key)))
        action_args.setdefault(name, TrackedArgs()).update(args)
        action_pointers[name] = join_pointer(cp, "arguments")
        if name not in actions:
            warnings.append(f"configuration of action {c['name']!r}, which is not in 'actions': not used")
    return SchedulerConfig(actions=actions, tiers=tiers, action_args=action_args, warnings=warnings,
                           action_pointers=action_pointers, raw=True)  # fmt: skip


def _kai_only(what: str, profile: str, ptr: str) -> None:
    """A SchedulingShard field is the ``kai`` profile's only."""
    if profile != "kai":
        raise InputError(f"{what} is KAI's (its SchedulingShard): only with profile 'kai'", ptr)


def _partition(raw: Any, profile: str, ptr: str) -> str:
    """KAI's SchedulingShard ``partitionLabelValue``: the node pool the ``kai`` profile
    schedules (its objects labelled ``kai.scheduler/node-pool`` with it; "" the default
    shard's, those without the label: ``app.ingest.nodepool``); a label value."""
    _kai_only("partitionLabelValue", profile, ptr)
    if not isinstance(raw, str):
        raise InputError("partitionLabelValue must be a string (a label value)", ptr)
    if len(raw) > 63 or (raw and not re.fullmatch(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?", raw)):
        raise InputError(f"partitionLabelValue {raw!r} is not a valid label value", ptr)
    return raw


#: KAI's SchedulingShard default plugin and action priorities (``defaultPluginPriorities``,
#: ``defaultActionPriorities``): the scheduler runs the enabled ones by priority, higher first,
#: then by name (``resolvePlugins``, ``resolveActions``)
KAI_PLUGIN_PRIORITY = {
    "predicates": 1900, "proportion": 1800, "priority": 1700, "nodeavailability": 1600, "resourcetype": 1500,
    "podaffinity": 1400, "elastic": 1300, "kubeflow": 1200, "ray": 1100, "subgrouporder": 1000, "taskorder": 900,
    "nominatednode": 800, "dynamicresources": 700, "minruntime": 600, "topology": 500, "snapshot": 400,
    "gpupack": 300, "gpuspread": 300, "nodeplacement": 200, "gpusharingorder": 100,
}  # fmt: skip
KAI_ACTION_PRIORITY = {"allocate": 500, "consolidation": 400, "reclaim": 300, "preempt": 200, "stalegangeviction": 100}


def _go_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63


def _shard_overrides(raw: Any, ptr: str, what: str, arguments: bool) -> dict[str, dict[str, Any]]:
    """A SchedulingShard ``plugins`` / ``actions`` map, as its CRD types it: per name an
    object of ``enabled`` (bool), ``priority`` (int) and, for plugins, ``arguments`` (strings)."""
    if not isinstance(raw, dict):
        raise InputError(f"{what} must be an object of names to overrides", ptr)
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(raw, key=str):
        op = join_pointer(ptr, str(name))
        o = raw[name]
        if not isinstance(o, dict):
            raise InputError("an override is an object ('enabled', 'priority'" + (", 'arguments')" if arguments else ")"), op)
        for k in sorted(o, key=str):
            if k not in ("enabled", "priority") + (("arguments",) if arguments else ()):
                raise InputError(f"unknown key {k!r} in a {what} override", join_pointer(op, str(k)))
        if "enabled" in o and not isinstance(o["enabled"], bool):
            raise InputError("'enabled' must be true or false", join_pointer(op, "enabled"))
        if "priority" in o and not _go_int(o["priority"]):
            raise InputError("'priority' must be an integer", join_pointer(op, "priority"))
        if arguments and "arguments" in o:
            args = o["arguments"]
            if not isinstance(args, dict) or not all(isinstance(v, str) for v in args.values()):
                raise InputError("'arguments' must be an object of strings (the SchedulingShard's map[string]string)",
                                 join_pointer(op, "arguments"))  # fmt: skip
        out[name] = o
    return out


def _merged(defaults: dict[str, dict[str, Any]], overrides: dict[str, dict[str, Any]]) -> list[str]:
    """``setDefault*``'s merge (a new name: enabled, priority 0; ``arguments``, when given,
    replace the defaults') and ``resolve*``: the enabled names by priority, higher first, then
    by name."""
    for name, o in overrides.items():
        d = defaults.setdefault(name, {"enabled": True, "priority": 0, "arguments": {}})
        for k in ("enabled", "priority", "arguments"):
            if k in o:
                d[k] = dict(o[k]) if k == "arguments" else o[k]
    return sorted((n for n, d in defaults.items() if d["enabled"]), key=lambda n: (-defaults[n]["priority"], n))


def _shard_plugins(base: dict[str, Any], raw: Any, profile: str, ptr: str) -> None:
    """KAI's SchedulingShard ``plugins`` ({name: {enabled, priority, arguments}}) on the ``kai``
    profile, as ``setDefaultPlugins`` merges them over the defaults (the placement strategy's
    GPU plugins, ``minRuntime`` and ``kValue`` applied first) and ``resolvePlugins`` orders
    the enabled ones. Gangplank's ``gang`` plugin (KAI's gang rules) stays first."""
    _kai_only("plugins", profile, ptr)
    overrides = _shard_overrides(raw, ptr, "plugins", True)
    tier = base["tiers"][0]["plugins"]
    present = {p["name"]: p for p in tier}
    defaults = {name: {"enabled": name in present, "priority": prio, "arguments": dict(present.get(name, {}).get("arguments") or {})}
                for name, prio in KAI_PLUGIN_PRIORITY.items()}  # fmt: skip
    order = _merged(defaults, overrides)
    plugins: list[dict[str, Any]] = [p for p in tier if p["name"] == "gang"]
    for name in order:
        entry: dict[str, Any] = {"name": name}
        if defaults[name]["arguments"]:
            entry["arguments"] = defaults[name]["arguments"]
        plugins.append(entry)
    base["tiers"] = [{"plugins": plugins}]


def _shard_actions(actions: str, raw: Any, profile: str, ptr: str) -> str:
    """KAI's SchedulingShard ``actions`` map ({name: {enabled, priority}}) on the ``kai``
    profile: merged over the profile's actions (KAI's defaults, consolidation off under a
    spread placement) as ``setDefaultActions``, and run by priority (``resolveActions``)."""
    _kai_only("an actions map", profile, ptr)
    overrides = _shard_overrides(raw, ptr, "actions", False)
    on = {a.strip() for a in actions.split(",") if a.strip()}
    defaults = {name: {"enabled": name in on, "priority": prio, "arguments": {}} for name, prio in KAI_ACTION_PRIORITY.items()}
    return ", ".join(_merged(defaults, overrides))


def _queue_depth(raw: Any, profile: str, actions: list[str], ptr: str) -> dict[str, int]:
    """KAI's SchedulingShard ``queueDepthPerAction`` ({action: jobs}): the operator refuses an
    action the scheduler does not run (``invalidJobDepthMapError``); the CRD's values are
    integers."""
    _kai_only("queueDepthPerAction", profile, ptr)
    if not isinstance(raw, dict):
        raise InputError("queueDepthPerAction must be an object of action names to job counts", ptr)
    out: dict[str, int] = {}
    for k in sorted(raw, key=str):
        where = join_pointer(ptr, str(k))
        if k not in actions:
            raise InputError(f"the scheduler's actions are {', '.join(actions)}; {k} isn't one of them, making the "
                             "queueDepthPerAction invalid (KAI's operator refuses it)", where)  # fmt: skip
        v = raw[k]
        if isinstance(v, bool) or not isinstance(v, int) or not -(2**31) <= v < 2**31:
            raise InputError("a queue depth is an integer (the SchedulingShard's int)", where)
        if v < -1:
            raise InputError("a queue depth is -1 (no limit) or more: below, KAI's queue would remove past its "
                             "heap's array and panic", where)  # fmt: skip
        out[k] = v
    return out


def _shard_argument(base: dict[str, Any], key: str, raw: Any, profile: str, ptr: str) -> None:
    """KAI's SchedulingShard ``minRuntime`` ({preemptMinRuntime, reclaimMinRuntime}: the
    ``minruntime`` plugin's ``defaultPreemptMinRuntime`` / ``defaultReclaimMinRuntime``) and
    ``kValue`` (the ``proportion`` plugin's ``kValue``, as ``strconv.FormatFloat`` writes it),
    on the ``kai`` profile, as the shard sets them up (``setDefaultPlugins``)."""
    _kai_only(key, profile, ptr)
    if key == "kValue":
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
            raise InputError("kValue must be a number (the SchedulingShard's float64)", ptr)
        args = {"kValue": gostrconv.format_float(float(raw))}
        plugin = "proportion"
    else:
        if not isinstance(raw, dict):
            raise InputError("minRuntime must be an object with 'preemptMinRuntime' and/or 'reclaimMinRuntime'", ptr)
        args = {}
        for k in sorted(raw, key=str):
            names = {"preemptMinRuntime": "defaultPreemptMinRuntime", "reclaimMinRuntime": "defaultReclaimMinRuntime"}
            if k not in names:
                raise InputError(f"unknown key {k!r} in minRuntime (KAI's are 'preemptMinRuntime' and 'reclaimMinRuntime')",
                                 join_pointer(ptr, str(k)))  # fmt: skip
            if not isinstance(raw[k], str):
                raise InputError(f"{k} must be a string (a duration such as '10m')", join_pointer(ptr, k))
            args[names[k]] = raw[k]
        plugin = "minruntime"
    for tier in base["tiers"]:
        for p in tier["plugins"]:
            if p["name"] == plugin:
                p["arguments"] = {**(p.get("arguments") or {}), **args}


def _shard_args(cfg: SchedulerConfig, raw: Any, ptr: str) -> None:
    """KAI's SchedulingShard ``args`` (the scheduler's flags: ``app.kai.flags``) on the ``kai``
    profile: the flags' settings, the action arguments they stand for (an argument the
    request's ``configurations`` also gives keeps that value, with a warning) and the node
    pool (``partition-label-value`` overrides ``partitionLabelValue``, as the operator
    writes the shard's args after the flags it makes from the shard's fields)."""
    _kai_only("args", cfg.profile, ptr)
    got = read_args(raw, ptr)
    cfg.kai_flags = got.flags
    cfg.warnings += got.warnings
    for (action, key), value in got.action_args.items():
        args = cfg.action_args.setdefault(action, TrackedArgs())
        if dict.__contains__(args, key):
            cfg.warnings.append(f"action {action}: argument {key} is set both by the SchedulingShard args and by "
                                f"'configurations': the configurations' value is taken")  # fmt: skip
            continue
        dict.__setitem__(args, key, value)
        if isinstance(args, TrackedArgs):
            args.read.add(key)  # (a flag, not something the request wrote as an argument)
    if got.partition is not None:
        cfg.partition = _partition(got.partition, cfg.profile, join_pointer(ptr, "partition-label-value"))


#: KAI's usage database clients (``usagedb/hub.go`` ``defaultClientMap``)
USAGE_DB_CLIENTS = frozenset({"prometheus", "fake", "fake-with-history"})


def _usage_db(cfg: SchedulerConfig, raw: Any, ptr: str) -> None:
    """KAI's SchedulingShard ``usageDBConfig``: KAI collects the queues' past usage; the request
    gives it (``options.kaiQueueUsage``, what KAI's usage database answers). Its fields (client,
    window, half-life) shape how KAI computes that usage, which Gangplank takes as given."""
    _kai_only("usageDBConfig", cfg.profile, ptr)
    if raw is None:
        return
    if not isinstance(raw, dict):
        raise InputError("usageDBConfig must be an object (the SchedulingShard's UsageDBConfig)", ptr)
    client = raw.get("clientType")
    if client not in USAGE_DB_CLIENTS:  # (the CRD requires it; KAI's scheduler does not start on another: GetClient)
        raise InputError(f"usageDBConfig.clientType must be one of {', '.join(sorted(USAGE_DB_CLIENTS))} (KAI's usage "
                         f"database clients; the scheduler does not start on another), not {client!r}",
                         join_pointer(ptr, "clientType"))  # fmt: skip
    if raw.get("connectionString") and raw.get("connectionStringEnvVar"):
        raise InputError("usageDBConfig sets both connectionString and connectionStringEnvVar: KAI's scheduler does "
                         "not start (resolveConnectionString: only one is allowed)", join_pointer(ptr, "connectionString"))
    cfg.usage_db = True  # (the usage itself: options.kaiQueueUsage, read by the proportion plugin)


def _placement_strategy(base: dict[str, Any], raw: Any, profile: str, ptr: str) -> None:
    """KAI's SchedulingShard ``placementStrategy`` ({gpu, cpu}: ``binpack``, the default, or
    ``spread``) on the ``kai`` profile, as the shard sets it up (``setDefaultPlugins``,
    ``setDefaultActions``): the ``nodeplacement`` plugin's arguments; with GPU ``spread``,
    ``gpuspread`` in place of ``gpupack`` and no ``gpusharingorder``; and no
    ``consolidation`` action when either is ``spread`` (an ``actions`` list given beside it
    still wins, as the shard's action overrides do)."""
    _kai_only("placementStrategy", profile, ptr)
    if not isinstance(raw, dict):
        raise InputError("placementStrategy must be an object with 'gpu' and/or 'cpu'", ptr)
    for key in sorted(raw, key=str):
        if key not in ("gpu", "cpu"):
            where = join_pointer(ptr, str(key))
            raise InputError(f"unknown key {key!r} in placementStrategy (KAI's are 'gpu' and 'cpu')", where)
        if raw[key] not in ("binpack", "spread"):
            raise InputError("a placement strategy is 'binpack' or 'spread'", join_pointer(ptr, key))
    strategy = {"gpu": raw.get("gpu", "binpack"), "cpu": raw.get("cpu", "binpack")}
    for tier in base["tiers"]:
        for plugin in tier["plugins"]:
            if plugin["name"] == "nodeplacement":
                plugin["arguments"] = dict(strategy)
            elif plugin["name"] == "gpupack" and strategy["gpu"] == "spread":
                plugin["name"] = "gpuspread"  # the GPU order of shared GPUs: emptier first
        if strategy["gpu"] == "spread":  # gpusharingorder is on with GPU binpack only
            tier["plugins"] = [p for p in tier["plugins"] if p["name"] != "gpusharingorder"]
    if "spread" in strategy.values():
        base["actions"] = ", ".join(a.strip() for a in base["actions"].split(",") if a.strip() != "consolidation")


def _profile_plugins(cfg: SchedulerConfig) -> None:
    """A profile's own plugins and arguments: nothing the request wrote, nothing to report."""
    cfg.raw = False
    for tier in cfg.tiers:
        for p in tier:
            p.pointer = ""
    cfg.warnings = [w for w in cfg.warnings if w.startswith("configuration of action")]


def unread_arguments(cfg: SchedulerConfig) -> list[str]:
    """The plugin and action arguments the request wrote that nothing read in the decision."""
    out = []
    for tier in cfg.tiers:
        for p in tier:
            args = p.arguments
            if p.pointer and p.modelled and isinstance(args, TrackedArgs) and args.unread():
                keys = ", ".join(args.unread())
                out.append(f"plugin {p.name}: arguments not read by Gangplank, so not applied: {keys}")
    for name, args in sorted(cfg.action_args.items()):
        if name in cfg.actions and isinstance(args, TrackedArgs) and args.unread():
            out.append(f"action {name}: arguments not read by Gangplank, so not applied: {', '.join(args.unread())}")
    return out


#: Typed action arguments: (kind, detail). Unlisted arguments are passed through untouched.
ACTION_ARGS: dict[str, tuple[str, Any]] = {
    "maxDomains": ("int", (-(2**31), 10_000)),  # (0 or less: 8, as Volcano's actions fall back)
    "maxBundleDrops": ("int", (0, 10_000)),
    "maxBundleSwaps": ("int", (0, 64)),
    "maxConsolidationPreemptees": ("int", (0, 1_000_000)),
    "roiThreshold": ("float", (0.0, 1e9)),
    "roiUnrequestedPenalty": ("float", (0.0, 1e9)),
    "victimOrder": ("enum", ("priority", "cost")),
    "algorithm": ("enum", ("volcano", "bundles", "kep5710")),
    "gangAwareEnable": ("bool", None),
    "useSchedulingSignatures": ("bool", None),
    "allowWholeBundle": ("bool", None),
    "networkTopologyRetrofit": ("bool", None),
}


def flag(value: Any, default: bool = False) -> bool:
    """A boolean argument as Volcano passes them (``true`` or the string ``"true"``); unset:
    ``default``."""
    if value is None:
        return default
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def int_arg(args: Any, key: str, default: int) -> int:
    """A typed integer action argument (``ACTION_ARGS``) as the config reader checked it: an
    integer, or a string or number holding one (``"8"``, ``"8.0"``, ``8.0``); unset or null:
    ``default``."""
    value = args.get(key)
    return default if value is None else int(float(value))


def check_action_arg(key: str, value: Any, pointer: str) -> None:
    """A 422 naming the argument when a known action argument has the wrong type or range."""
    spec = ACTION_ARGS.get(key)
    if spec is None or value is None:
        return
    kind, detail = spec
    if kind == "bool":
        if isinstance(value, bool) or (isinstance(value, str) and value.lower() in ("true", "false")):
            return
        raise InputError(f"{key} must be true or false", pointer, kind="invalid-config")
    if kind == "enum":
        if isinstance(value, str) and value.lower() in detail:
            return
        raise InputError(f"{key} must be one of {', '.join(detail)}, not {value!r}", pointer, kind="invalid-config")
    lo, hi = detail
    try:
        number = float(value) if not isinstance(value, bool) else float("nan")
    except (TypeError, ValueError):
        number = float("nan")
    if not (lo <= number <= hi) or (kind == "int" and number != int(number)):
        what = "an integer" if kind == "int" else "a number"
        raise InputError(f"{key} must be {what} from {lo} to {hi}, not {value!r}", pointer, kind="invalid-config")
