"""Volcano's Go test builders, for the tests that transcribe Volcano's Go test tables."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.framework.config import FLAG_KEY


def rl(cpu: str = "", memory: str = "", **scalars: str) -> dict[str, str]:
    """``api.BuildResourceList(cpu, memory, scalars...)``: an empty cpu / memory is left out."""
    out: dict[str, str] = {}
    if cpu:
        out["cpu"] = cpu
    if memory:
        out["memory"] = memory
    out.update(scalars)
    return out


def go_plugin(name: str, enabled: Iterable[str], **extra: Any) -> dict[str, Any]:
    """A Go ``conf.PluginOption`` literal: the listed flags true, every other one off (a Go
    test builds its tiers without the loader's defaults, so an unset flag is disabled)."""
    on = set(enabled)
    assert on <= set(FLAG_KEY), on - set(FLAG_KEY)
    return {"name": name, **{key: flag in on for flag, key in FLAG_KEY.items()}, **extra}
