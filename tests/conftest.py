from __future__ import annotations

import os

import pytest
from fastapi.testclient import TestClient

from app.main import app

# The extender's background snapshot reader stays off in tests (it would read the snapshots of
# whichever test ran last while others run); tests/test_extender_index.py turns it on for itself.
os.environ.setdefault("GANGPLANK_EXTENDER_PREREAD", "0")


@pytest.fixture(scope="session")
def client() -> TestClient:
    return TestClient(app, raise_server_exceptions=False)
