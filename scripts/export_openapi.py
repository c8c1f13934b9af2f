"""Write openapi/openapi.json from the app (``make openapi``); a test fails when it drifts."""

from __future__ import annotations

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.main import app  # noqa: E402


def render() -> str:
    return json.dumps(app.openapi(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    (ROOT / "openapi" / "openapi.json").write_text(render())
    print("wrote openapi/openapi.json")
