"""The committed OpenAPI document is the app's; regenerate with `make openapi`."""

from __future__ import annotations

import json
import pathlib

from app.main import app

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_committed_openapi_matches_the_app():
    committed = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    assert committed == json.loads(json.dumps(app.openapi())), "openapi/openapi.json drifted: run `make openapi`"


def test_openapi_documents_the_native_form_and_problem_details():
    schemas = app.openapi()["components"]["schemas"]
    assert {"NativeCluster", "DecisionRequest", "DecisionResponse", "Problem"} <= set(schemas)
    body = app.openapi()["paths"]["/v1/decisions"]["post"]["requestBody"]["content"]
    assert set(body) == {"application/json", "application/yaml"}
    assert "422" in app.openapi()["paths"]["/v1/decisions"]["post"]["responses"]
