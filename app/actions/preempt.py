"""preempt and reclaim, gang-aware or legacy (Volcano), and the gangpreempt / gangreclaim names.

* ``preempt`` / ``reclaim`` with ``gangAwareEnable: true`` (action argument, or the seed's
  plugin-argument spelling ``preempt.gangAwareEnable``), and the actions ``gangpreempt`` /
  ``gangreclaim``, run only the gang-aware path (``app.eviction.gang``), except that the
  actions ``gangpreempt`` / ``gangreclaim`` in the ``volcano`` profile or a
  ``volcano-scheduler.conf`` the request writes are Volcano's own
  (``app.eviction.volcano_gang``) unless the request names one of Gangplank's options
  (:data:`GANGPLANK_ARGS`, ``options.solver: exact``).
* Otherwise the legacy task-centric actions run (``app.eviction.legacy``).
* In the ``kai`` profile (KAI's proportion plugin) without ``gangAwareEnable``, KAI's
  scenario solver runs (``app.kai``), as KAI-Scheduler decides.
* ``algorithm: kep5710`` picks KEP-5710's victim search instead of bundles (gang-aware path).
"""

from __future__ import annotations

from typing import Any

from app.eviction.gang import PREEMPT, RECLAIM, GangEviction
from app.eviction.kep5710 import Kep5710Eviction
from app.eviction.legacy import LegacyEviction
from app.eviction.volcano_gang import VolcanoGangEviction
from app.framework.action import Action
from app.framework.config import flag
from app.framework.plugin import is_go_int
from app.framework.session import Session
from app.plugins.kai_fairshare import kai_proportion as kai_solver


def evictor(kind: str, args: dict[str, Any], ssn: Session | None = None) -> GangEviction:
    """``options.solver: exact`` solves victim selection as a MILP; else ``algorithm:
    kep5710`` selects KEP-5710's priority-threshold search; default: bundles."""
    if ssn is not None and ssn.solver == "exact":
        from app.eviction.exact import ExactEviction  # scipy loads only when asked for

        ev = ExactEviction(kind, args)
        ev.time_limit = ssn.deadline_s
        return ev
    if str(args.get("algorithm") or "bundles").lower() == "kep5710":
        return Kep5710Eviction(kind, args)
    return GangEviction(kind, args)


#: Action arguments of Gangplank's gang-aware eviction that Volcano's actions do not have:
#: naming one (without ``algorithm``) asks for Gangplank's path where Volcano's would run.
GANGPLANK_ARGS = ("victimOrder", "roiThreshold", "roiUnrequestedPenalty", "maxBundleDrops", "maxBundleSwaps")


def volcano_gang(ssn: Session, args: dict[str, Any], named_action: bool) -> bool:
    """Whether the gang-aware path runs Volcano's actions: ``algorithm: volcano``, or, for
    the action names ``gangpreempt`` / ``gangreclaim`` (``named_action``; not the seed's
    ``gangAwareEnable`` on ``preempt`` / ``reclaim``, which is Gangplank's), no
    ``algorithm`` where the request asks for Volcano (its profile, or its own scheduler
    conf) and names none of Gangplank's options (a named one is reported in ``warnings``)."""
    algorithm = args.get("algorithm")
    if algorithm is not None:
        return str(algorithm).lower() == "volcano"
    if not named_action or not ssn.follows_volcano:
        return False
    named = sorted(k for k in GANGPLANK_ARGS if args.get(k) is not None)
    if ssn.solver == "exact":
        named.append("options.solver: exact")
    if named:
        ssn.cluster.warnings.append(
            f"gang-aware eviction: {', '.join(named)} is Gangplank's, not Volcano's: gangpreempt / gangreclaim run "
            "Gangplank's gang-aware eviction (seed 01) instead of Volcano's actions (algorithm: volcano asks for those)")
        return False
    return True


def warn_max_domains(ssn: Session, action: str, args: dict[str, Any], volcano: bool) -> None:
    """``maxDomains`` of 0 or less is taken as 8, as Volcano's gang actions fall back
    (``parseArguments``, which logs it); for Volcano's actions (``volcano``), so is one that
    is not a YAML integer (``Arguments.GetInt`` keeps the default): said in ``warnings``."""
    v = args.get("maxDomains")
    if v is None:
        return
    if volcano and not is_go_int(v):
        ssn.cluster.warnings.append(f"action {action}: maxDomains {v!r} is not an integer: 8 candidate domains are "
                                    "used, as Volcano does")  # fmt: skip
    elif not isinstance(v, bool) and float(v) <= 0:
        ssn.cluster.warnings.append(f"action {action}: maxDomains {v} is not positive: 8 candidate domains are used, "
                                    "as Volcano falls back")


def gang_aware(ssn: Session, kind: str, args: dict[str, Any]) -> bool:
    if flag(args.get("gangAwareEnable")):
        return True
    key = f"{kind}.gangAwareEnable"
    return any(flag(p.arguments.get(key)) for tier in ssn.config.tiers for p in tier)


def retrofit(ssn: Session) -> bool:
    """The legacy actions' network-topology retrofit is Gangplank's: on in its own profile,
    off where the request asks for Volcano (its profile, or its own scheduler conf)."""
    return ssn.config.profile == "gangplank" and not ssn.config.raw


class Preempt(Action):
    name = PREEMPT
    summary = "evict lower-priority work of the same queue for starving jobs"
    force_gang = False
    kind = PREEMPT

    def execute(self, ssn: Session) -> None:
        """The gang-aware path (Volcano's actions or Gangplank's), KAI's solver under its
        proportion plugin, else Volcano's legacy action."""
        kind = self.kind
        gang = self.force_gang or gang_aware(ssn, kind, self.args)
        if gang and volcano_gang(ssn, self.args, self.force_gang):
            warn_max_domains(ssn, self.name, self.args, volcano=True)
            VolcanoGangEviction(kind, self.args).execute(ssn)
        elif gang:
            warn_max_domains(ssn, self.name, self.args, volcano=False)
            if ssn.sharding is not None and ssn.sharding.mode == "soft":
                ssn.warn_once(f"action {self.name}: Gangplank's gang-aware eviction does not prefer the nodes of the "
                              "scheduler's shard (soft sharding is Volcano's actions' order): it takes any node")  # fmt: skip
            evictor(kind, self.args, ssn).execute(ssn)
        elif kai_solver(ssn):
            from app.kai.actions import KaiPreempt, KaiReclaim

            (KaiPreempt if kind == PREEMPT else KaiReclaim)(ssn, self.args).execute()
        else:
            LegacyEviction(kind, self.args, retrofit(ssn)).execute(ssn)


class Reclaim(Preempt):
    name = RECLAIM
    summary = "take back resources from other queues over their share for starving jobs"
    kind = RECLAIM


class GangPreempt(Preempt):
    name = "gangpreempt"
    summary = "gang-aware preempt (Volcano's in the volcano profile, else seed 01's)"
    force_gang = True


class GangReclaim(Reclaim):
    name = "gangreclaim"
    summary = "gang-aware reclaim (Volcano's in the volcano profile, else seed 01's)"
    force_gang = True
