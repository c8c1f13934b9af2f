"""cdp: Volcano's cooldown protection (``pkg/scheduler/plugins/cdp``).

Preemptable and Reclaimable keep every candidate but a Running pod inside its cooldown: a
pod whose ``volcano.sh/cooldown-time`` (its label, else its annotation; a Go duration) is
valid and whose first ``PodScheduled`` condition with status ``True`` changed less than
that long before now (``options.now``: Volcano's clock) is no victim. An invalid duration
protects nothing (Volcano logs it; here the warnings name the pod). Read from Kubernetes
objects (the native form has no pod conditions).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.errors import InputError
from app.framework.plugin import Plugin
from app.model.cluster import Task


#: Go's ``time.ParseDuration`` units, in nanoseconds (``µs`` with U+00B5 or U+03BC)
_UNIT_NS = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "\u03bcs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9,
            "h": 3600 * 10**9}
_MAX_NS = 2**63
_DIGITS = frozenset("0123456789")


def go_duration(raw: str) -> float:
    """Go's ``time.ParseDuration`` in seconds, refusing what it refuses (an ``InputError``):
    ``[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+`` with ASCII digits and Go's units, a lone ``0``, no
    space, and nothing past 2^63-1 nanoseconds."""
    s, neg = raw, False
    if s[:1] in ("-", "+"):
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0.0
    if not s:
        raise InputError(f"{raw!r} is not a Go duration", "")
    total = 0
    while s:
        if not (s[0] == "." or s[0] in _DIGITS):
            raise InputError(f"{raw!r} is not a Go duration", "")
        i = 0
        while i < len(s) and s[i] in _DIGITS:
            i += 1
        whole, s, pre = int(s[:i] or "0"), s[i:], i > 0
        if whole > _MAX_NS:  # (leadingInt allows up to 2^63: -9223372036854775808ns is Go's least duration)
            raise InputError(f"{raw!r} overflows a Go duration", "")
        frac, scale, post = 0, 1, False
        if s[:1] == ".":
            s = s[1:]
            i = 0
            while i < len(s) and s[i] in _DIGITS:
                if frac <= (_MAX_NS - 1) // 10:  # (leadingFraction: further digits are dropped once it would overflow)
                    frac, scale = frac * 10 + int(s[i]), scale * 10
                i += 1
            s, post = s[i:], i > 0
        if not pre and not post:
            raise InputError(f"{raw!r} is not a Go duration", "")
        i = 0
        while i < len(s) and not (s[i] == "." or s[i] in _DIGITS):
            i += 1
        unit = _UNIT_NS.get(s[:i])
        if unit is None:
            raise InputError(f"{raw!r} is not a Go duration (unit {s[:i]!r})", "")
        s = s[i:]
        if whole > _MAX_NS // unit:
            raise InputError(f"{raw!r} overflows a Go duration", "")
        v = whole * unit
        if frac:
            v += int(float(frac) * (float(unit) / scale))
            if v > _MAX_NS:
                raise InputError(f"{raw!r} overflows a Go duration", "")
        total += v
        if total > _MAX_NS:
            raise InputError(f"{raw!r} overflows a Go duration", "")
    if not neg and total > _MAX_NS - 1:
        raise InputError(f"{raw!r} overflows a Go duration", "")
    return (-total if neg else total) / 1e9


class Cdp(Plugin):
    name = "cdp"
    summary = "Volcano: a Running pod within its volcano.sh/cooldown-time since it was scheduled is no victim"

    def open(self) -> None:
        c = self.ssn.cluster
        #: pod key -> until when it is protected
        self.protected_until: dict[str, float] = {}
        for key, (raw, scheduled) in sorted(c.cooldowns.items()):
            try:
                cooldown = go_duration(raw)
            except InputError:
                self.warn(f"plugin cdp: pod {key}'s volcano.sh/cooldown-time {raw!r} is not a Go duration: it is not "
                          "protected, as Volcano does (it logs the invalid value)")  # fmt: skip
                continue
            if scheduled is not None:
                self.protected_until[key] = scheduled + cooldown
        reg = self.ssn.register
        reg("preemptable", self.name, lambda _, candidates: self.keep(candidates))
        reg("reclaimable", self.name, lambda _, candidates: self.keep(candidates))

    def keep(self, candidates: Sequence[Task]) -> list[Task]:
        now = self.ssn.cluster.now
        until = self.protected_until
        return [t for t in candidates if not (t.key in until and until[t.key] > now)]
