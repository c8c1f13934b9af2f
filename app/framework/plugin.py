"""The plugin base class: a plugin registers only the extension points it implements."""

from __future__ import annotations

import math

from typing import TYPE_CHECKING, Any, ClassVar

from app.ingest.gostrconv import parse_float
from app.ingest.reader import go_bool

if TYPE_CHECKING:
    from app.framework.config import PluginOption
    from app.framework.session import Session


class Plugin:
    name: ClassVar[str] = ""
    #: One line for the README's plugin table and for ``/version``.
    summary: ClassVar[str] = ""
    #: Its JobReady / SubJobReady read nothing but the tasks' states (the counters
    #: :func:`~app.model.cluster.set_status` keeps), so allocate may ask "ready after these
    #: placements?" by changing states alone (see :meth:`Session.first_ready`).
    ready_from_counts: ClassVar[bool] = False

    def __init__(self, ssn: Session, option: PluginOption) -> None:
        self.ssn = ssn
        self.option = option
        self.args: dict[str, Any] = option.arguments

    def open(self) -> None:
        """Register hooks with ``self.ssn.register(point, self.name, fn)``."""

    def on_session_close(self) -> None:
        """Volcano's ``OnSessionClose``: what the plugin leaves in the scheduler's cache for
        the next session (:meth:`Session.session_close`)."""

    def warn(self, note: str) -> None:
        """Add ``note`` to the answer's warnings, once (what the scheduler would log)."""
        self.ssn.warn_once(note)

    # -- argument helpers (Volcano passes every argument as a string or a number) ------------
    def _pointer(self, key: str) -> str:
        for ti, tier in enumerate(self.ssn.config.tiers):
            for pi, p in enumerate(tier):
                if p is self.option:
                    return f"/config/tiers/{ti}/plugins/{pi}/arguments/{key.replace('~', '~0').replace('/', '~1')}"
        return "/config"

    def arg_go_bool(self, key: str, default: bool) -> bool:
        """``Arguments.GetBool`` (:func:`~app.ingest.reader.go_bool`): a value Volcano cannot read
        keeps ``default``, and the warnings say so."""
        raw = self.args.get(key)
        value, understood = go_bool(raw, default)
        if not understood:
            self.warn(f"plugin {self.name}: argument {key} {raw!r} is not a boolean: {str(default).lower()} is used, "
                      "as Volcano does")  # fmt: skip
        return value

    def arg_go_int(self, key: str, default: int) -> int:
        """``Arguments.GetInt``: the value only when YAML made it a Go ``int`` (an integer
        literal within int64; not a string, a float or a bool), else ``default``, and the
        warnings say so."""
        raw = self.args.get(key)
        if raw is None:
            return default
        if not is_go_int(raw):
            self.warn(f"plugin {self.name}: argument {key} {raw!r} is not an integer: {default} is used, as Volcano does")
            return default
        return raw

    def arg_go_float(self, key: str, default: float) -> float:
        """``Arguments.GetFloat64``: the value when YAML made it a float64 or an ``int`` (not a
        string or a bool), else ``default``, and the warnings say so."""
        raw = self.args.get(key)
        if raw is None:
            return default
        if isinstance(raw, float) and math.isfinite(raw) or is_go_int(raw):
            return float(raw)  # type: ignore[arg-type]
        self.warn(f"plugin {self.name}: argument {key} {raw!r} is not a number: {default:g} is used, as Volcano does")
        return default

    def arg_kai_float(self, key: str, default: float) -> float:
        """KAI's ``PluginArguments.GetFloat64`` (its arguments are strings): Go's
        ``strconv.ParseFloat``; a value it cannot read keeps ``default``, which KAI logs and
        goes on with (the warnings say so). A number written without quotes reads as its
        text would."""
        raw = self.args.get(key)
        if raw is None:
            return default
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            return float(raw)
        value = parse_float(raw) if isinstance(raw, str) else None
        if value is None:
            self.warn(f"plugin {self.name}: argument {key} {raw!r} is not a number strconv.ParseFloat reads: "
                      f"{default:g} is used, as KAI does")  # fmt: skip
            return default
        return value

    def arg_str(self, key: str, default: str) -> str:
        v = self.args.get(key)
        return default if v is None else str(v)


#: the largest Go ``int`` (a larger YAML integer is no Go int: yaml.v2 gives a uint64)
GO_INT_MAX = 2**63 - 1


def is_go_int(raw: object) -> bool:
    """YAML made ``raw`` a Go ``int`` (what ``Arguments.GetInt`` takes)."""
    return isinstance(raw, int) and not isinstance(raw, bool) and -GO_INT_MAX - 1 <= raw <= GO_INT_MAX
