"""Action registry: the names users write in ``actions: "..."``."""

from __future__ import annotations

from app.actions.allocate import Allocate
from app.actions.backfill import Backfill
from app.actions.enqueue import Enqueue
from app.actions.kai import Consolidation, StaleGangEviction
from app.actions.preempt import GangPreempt, GangReclaim, Preempt, Reclaim
from app.actions.shuffle import Shuffle
from app.framework.action import Action

ACTIONS: dict[str, type[Action]] = {a.name: a for a in (Allocate, Backfill, Enqueue, Preempt, Reclaim, GangPreempt, GangReclaim, Consolidation, StaleGangEviction, Shuffle)}

#: Spellings users write for the same action (Volcano v1.15 camel case, KAI names).
ALIASES = {"gangpreempt": "gangpreempt", "gangreclaim": "gangreclaim", "consolidate": "consolidation"}

#: Recognised action names not implemented yet in this version (a 422 says so).
PENDING_ACTIONS: dict[str, str] = {}
