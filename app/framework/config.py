"""Scheduler configuration: Volcano's ``volcano-scheduler.conf`` shape, or a profile.

Accepted forms of the request's ``config``:

* omitted: Gangplank's default (gang-aware, topology-aware; see ``DEFAULT_CONF``);
* a YAML string or an object in Volcano's shape: ``actions`` (comma-separated),
  ``tiers[].plugins[]`` (``name``, ``arguments``, every ``enable*`` flag, unset flags
  meaning enabled, as Volcano's loader applies them), ``configurations[]`` (per-action
  arguments);
* ``{"profile": "volcano" | "kai" | "gangplank", "actions": "..."}``: a project's default
  actions and plugins; ``actions`` replaces only the action list.

Unknown action or plugin names are a 422 naming the word. drf's ``enableHierarchy: true``
(Volcano's hierarchical DRF) is a 422 ``not-implemented`` naming the flag; capacity's
``enableHierarchy`` is implemented.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest.body import parse_yaml_text

#: Volcano's loader flags. Volcano spells some ``enable...`` and some ``enabled...``;
#: both spellings are accepted for every flag and map to one canonical name.
FLAGS = (
    "JobOrder", "NamespaceOrder", "Hierarchy", "JobReady", "JobPipelined", "TaskOrder", "Preemptable",
    "Reclaimable", "Preemptive", "QueueOrder", "ClusterOrder", "Predicate", "BestNode", "NodeOrder",
    "TargetJob", "ReservedNodes", "JobEnqueued", "Victim", "JobStarving", "Overused", "Allocatable",
    "HyperNodeOrder", "HyperNodeGradient", "SubJobReady", "SubJobPipelined", "SubJobOrder",
)  # fmt: skip
_FLAG_KEYS = {f"enable{f}": f for f in FLAGS} | {f"enabled{f}": f for f in FLAGS}

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
  - name: elastic
  - name: kubeflow
  - name: ray
  - name: nodeavailability
  - name: gpusharingorder
  - name: gpupack
  - name: resourcetype
  - name: subgrouporder
  - name: taskorder
  - name: nominatednode
  - name: dynamicresources
  - name: nodeplacement
    arguments:
      cpu: binpack
      gpu: binpack
  - name: minruntime
  - name: topology
  - name: snapshot
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

    def enabled(self, flag: str) -> bool:
        """Unset flags are enabled, as Volcano's ``ApplyPluginConfDefaults`` makes them."""
        return self.flags.get(flag, True)


@dataclass(slots=True)
class SchedulerConfig:
    actions: list[str]
    tiers: list[list[PluginOption]]
    action_args: dict[str, dict[str, Any]]
    profile: str = "gangplank"

    def plugin(self, name: str) -> PluginOption | None:
        for tier in self.tiers:
            for p in tier:
                if p.name == name:
                    return p
        return None


def _parse_yaml(text: str, ptr: str) -> Any:
    # the bounded loader of request bodies: aliases cannot expand past a limit, keys are strings
    return parse_yaml_text(text, ptr, "config")


def split_actions(raw: Any, ptr: str, known: frozenset[str], aliases: dict[str, str]) -> list[str]:
    if not isinstance(raw, str):
        raise InputError("'actions' must be a comma-separated string", ptr)
    out = []
    for word in raw.split(","):
        w = word.strip()
        if not w:
            continue
        canonical = aliases.get(w.lower(), w.lower())
        if canonical not in known:
            raise InputError(
                f"unknown action {w!r} (known: {', '.join(sorted(known | set(aliases)))})", ptr, kind="unknown-action"
            )
        out.append(canonical)
    return out


def load_config(
    raw: Any,
    *,
    known_actions: frozenset[str],
    action_aliases: dict[str, str],
    known_plugins: frozenset[str],
    ptr: str = "/config",
) -> SchedulerConfig:
    if raw is None:
        return load_config(_parse_yaml(DEFAULT_CONF, ptr), known_actions=known_actions,
                           action_aliases=action_aliases, known_plugins=known_plugins, ptr=ptr)  # fmt: skip
    if isinstance(raw, str):
        raw = _parse_yaml(raw, ptr)
        if raw is None:
            raise InputError("config is empty", ptr)
    if not isinstance(raw, dict):
        raise InputError("config must be an object or a YAML string", ptr)
    if "profile" in raw:
        profile = raw["profile"]
        if profile not in PROFILES:
            raise InputError(
                f"unknown profile {profile!r} (known: {', '.join(sorted(PROFILES))})", join_pointer(ptr, "profile")
            )
        extra = sorted(set(raw) - {"profile", "actions", "configurations"})
        if extra:
            raise InputError(f"unknown key {extra[0]!r} next to 'profile'", join_pointer(ptr, extra[0]))
        base = _parse_yaml(PROFILES[profile], ptr)
        if "actions" in raw:
            base["actions"] = raw["actions"]
        if "configurations" in raw:
            base["configurations"] = raw["configurations"]
        cfg = load_config(base, known_actions=known_actions, action_aliases=action_aliases,
                          known_plugins=known_plugins, ptr=ptr)  # fmt: skip
        cfg.profile = profile
        return cfg
    for k in sorted(raw):
        if k not in ("actions", "tiers", "configurations", "metrics"):
            raise InputError(f"unknown config key {k!r}", join_pointer(ptr, k), kind="unknown-field")
    actions = split_actions(raw.get("actions", ""), join_pointer(ptr, "actions"), known_actions, action_aliases)
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
                raise InputError(
                    f"unknown plugin {name!r} (known: {', '.join(sorted(known_plugins))})",
                    join_pointer(pp, "name"),
                    kind="unknown-plugin",
                )
            opt = PluginOption(name=name)
            for k, v in p.items():
                if k in ("name",):
                    continue
                if k == "arguments":
                    if v is not None and not isinstance(v, dict):
                        raise InputError("'arguments' must be a mapping", join_pointer(pp, k))
                    opt.arguments = dict(v or {})
                elif k in _FLAG_KEYS:
                    if not isinstance(v, bool):
                        raise InputError(f"'{k}' must be true or false", join_pointer(pp, k))
                    opt.flags[_FLAG_KEYS[k]] = v
                    if name == "drf" and _FLAG_KEYS[k] == "Hierarchy" and v:
                        # capacity's enableHierarchy is implemented; drf's (hDRF) is not yet
                        raise InputError(
                            f"drf's {k} (Volcano's hierarchical DRF) is recognised but not implemented in this "
                            "version; leave it unset or false",
                            join_pointer(pp, k),
                            kind="not-implemented",
                        )
                else:
                    raise InputError(f"unknown plugin option {k!r}", join_pointer(pp, k), kind="unknown-field")
            plugins.append(opt)
        tiers.append(plugins)
    action_args: dict[str, dict[str, Any]] = {}
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
        action_args.setdefault(name, {}).update(args)
    return SchedulerConfig(actions=actions, tiers=tiers, action_args=action_args)


#: Typed action arguments: (kind, detail). Unlisted arguments are passed through untouched.
ACTION_ARGS: dict[str, tuple[str, Any]] = {
    "maxDomains": ("int", (1, 10_000)),
    "maxBundleDrops": ("int", (0, 10_000)),
    "maxConsolidationPreemptees": ("int", (0, 1_000_000)),
    "roiThreshold": ("float", (0.0, 1e9)),
    "roiUnrequestedPenalty": ("float", (0.0, 1e9)),
    "victimOrder": ("enum", ("priority", "cost")),
    "algorithm": ("enum", ("bundles", "kep5710")),
    "gangAwareEnable": ("bool", None),
    "useSchedulingSignatures": ("bool", None),
    "allowWholeBundle": ("bool", None),
}


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
