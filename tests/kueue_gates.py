"""Kueue's feature gates as its Go tests set them (``features.SetFeatureGatesDuringTest``):
enabling a gate enables what it depends on, disabling one disables the gates that depend on it,
so the Configuration a Go case stands for is one Kueue starts with (component-base's
``SetFromMap`` refuses an enabled gate whose dependency is disabled: a 422 here)."""

from __future__ import annotations

from app.kueue.featuregates import DEPENDENCIES


def as_go_tests_set(gates: dict[str, bool]) -> dict[str, bool]:
    out: dict[str, bool] = {}

    def enable(name: str) -> None:
        out[name] = True
        for dep in DEPENDENCIES.get(name, ()):
            enable(dep)

    def disable(name: str) -> None:
        out[name] = False
        for dependent, parents in sorted(DEPENDENCIES.items()):
            if name in parents and out.get(dependent) is not False:
                disable(dependent)

    for name, value in gates.items():
        (enable if value else disable)(name)
    return out
