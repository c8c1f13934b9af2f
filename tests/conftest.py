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


@pytest.fixture
def served(monkeypatch):
    """The app behind the launcher's protocol on a free loopback port, with a 0.5 s read timeout."""
    import socket
    import threading
    import time

    import uvicorn

    from app.settings import get_settings

    monkeypatch.setenv("GANGPLANK_READ_TIMEOUT_SECONDS", "0.5")
    get_settings.cache_clear()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, http="app.serve:TLSH11Protocol", log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(5)
    get_settings.cache_clear()
