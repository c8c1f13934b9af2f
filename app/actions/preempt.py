"""preempt and reclaim, gang-aware or legacy (Volcano), and the gangpreempt / gangreclaim names.

* ``preempt`` / ``reclaim`` with ``gangAwareEnable: true`` (action argument, or the seed's
  plugin-argument spelling ``preempt.gangAwareEnable``), and the actions ``gangpreempt`` /
  ``gangreclaim`` (Volcano v1.15), run only the gang-aware path (``app.eviction.gang``).
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
from app.framework.action import Action
from app.framework.config import flag
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
    if str(args.get("algorithm", "bundles")).lower() == "kep5710":
        return Kep5710Eviction(kind, args)
    return GangEviction(kind, args)


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

    def execute(self, ssn: Session) -> None:
        if self.force_gang or gang_aware(ssn, PREEMPT, self.args):
            evictor(PREEMPT, self.args, ssn).execute(ssn)
        elif kai_solver(ssn):
            from app.kai.actions import KaiPreempt

            KaiPreempt(ssn, self.args).execute()
        else:
            LegacyEviction(PREEMPT, self.args, retrofit(ssn)).execute(ssn)


class Reclaim(Action):
    name = RECLAIM
    summary = "take back resources from other queues over their share for starving jobs"
    force_gang = False

    def execute(self, ssn: Session) -> None:
        if self.force_gang or gang_aware(ssn, RECLAIM, self.args):
            evictor(RECLAIM, self.args, ssn).execute(ssn)
        elif kai_solver(ssn):
            from app.kai.actions import KaiReclaim

            KaiReclaim(ssn, self.args).execute()
        else:
            LegacyEviction(RECLAIM, self.args, retrofit(ssn)).execute(ssn)


class GangPreempt(Preempt):
    name = "gangpreempt"
    summary = "Volcano v1.15 gang-aware preempt"
    force_gang = True


class GangReclaim(Reclaim):
    name = "gangreclaim"
    summary = "Volcano v1.15 gang-aware reclaim"
    force_gang = True
