"""Kueue's priority boost (KEP-7990, the ``PriorityBoost`` feature gate, alpha, off by
default): a Workload's ``kueue.x-k8s.io/priority-boost`` annotation, a signed 32-bit integer,
is added to its priority wherever Kueue orders or compares Workloads
(``priority.EffectivePriority``: the queue order, fair sharing's tournament, preemption's
candidate order and policies). With the gate off the annotation is not read.

* ``PriorityBoost`` (``pkg/util/priority/priority.go``): absent or "" is 0, else
  ``strconv.ParseInt(value, 10, 32)``; a value that does not parse is an error.
* ``EffectivePriority``: the base priority plus the boost; on an error, the base priority.
* The Workload webhook (``validateWorkload``, ``pkg/webhooks/workload_webhook.go``) refuses a
  Workload whose annotation is present and "" (use "0") or does not parse: a Workload without
  ``metadata.uid`` (one not yet created) is refused with a 422 at the annotation; one already
  in the cluster (annotated while the gate was off, say) keeps its base priority, named in a
  warning.
"""

from __future__ import annotations

import json

from app.errors import InputError
from app.ingest.gostrconv import parse_int

ANNOTATION = "kueue.x-k8s.io/priority-boost"
GATE = "PriorityBoost"
EMPTY = 'must be a valid signed integer; use "0" explicitly, empty string is not allowed'
INVALID = "must be a valid signed integer"


def boost(value: str | None) -> int | None:
    """``PriorityBoost`` with the gate on: the boost, 0 without one, None where Go errs."""
    if value is None or value == "":
        return 0
    return parse_int(value, 32)


def webhook_error(value: str | None) -> str:
    """``validateWorkload``'s message for the annotation ("" when it passes)."""
    if value is None:
        return ""
    if value == "":
        return EMPTY
    return "" if boost(value) is not None else INVALID


def effective(base: int, value: str | None, *, enabled: bool, pointer: str, ident: dict[str, str], uid: str,
              key: str, notes: list[str]) -> int:  # fmt: skip
    """``EffectivePriority`` of a Workload of base priority ``base`` and annotation ``value``
    (None: absent), at ``pointer``; see the module's docstring for the webhook."""
    if not enabled or value is None:
        return base
    why = webhook_error(value)
    if not why:
        return base + (boost(value) or 0)
    if not uid:
        raise InputError(f"metadata.annotations[{ANNOTATION}]: Invalid value: {json.dumps(value)}: {why}", pointer, ident)
    notes.append(f"Kueue Workload {key}: annotation {ANNOTATION}={json.dumps(value)} {why}: Kueue's webhook refuses it while "
                 f"{GATE} is on, and Kueue orders this Workload by its base priority {base}")  # fmt: skip
    return base
