"""Every module of the service imports on its own (no import cycle that only the usual
import order hides): in a fresh interpreter, each module is imported with every ``app``
module (and the metrics registry they fill) unloaded first."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

SCRIPT = """
import importlib, sys
bad = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m.split(".")[0] in ("app", "prometheus_client")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as e:
        bad.append(f"{name}: {type(e).__name__}: {e}")
print("\\n".join(bad))
"""


def test_every_module_imports_on_its_own() -> None:
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__") for p in (ROOT / "app").rglob("*.py")
    )
    assert "app.eviction.gang" in modules
    out = subprocess.run([sys.executable, "-c", SCRIPT, *modules], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "", out.stdout
