"""Contract fuzzing from the OpenAPI document (schemathesis, in process): whatever a client
sends, no 5xx, every error is problem+json, and answers match the documented schema."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS as REGISTRY

from app.main import app

schema = schemathesis.openapi.from_asgi("/openapi.json", app)
# The service is deliberately more lenient than the documented schema (it accepts a bare
# List, YAML, unknown kinds...), so request-strictness checks are left out; everything about
# what the service answers is checked.
CHECKS = {"not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_schema_conformance", "unsupported_method", "allow_header_conformance"}  # fmt: skip


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_breaks_an_endpoint(case):
    response = case.call()
    assert response.status_code < 500, (case.path, response.status_code, response.text[:500])
    ct = response.headers.get("content-type") or response.headers.get("Content-Type")
    ct = ct[0] if isinstance(ct, list) else ct
    if response.status_code >= 400:
        assert ct.startswith("application/problem+json"), (case.path, response.status_code, ct)
    case.validate_response(response, checks=[c for c in REGISTRY.get_all() if c.__name__ in CHECKS])
