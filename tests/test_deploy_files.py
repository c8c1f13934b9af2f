"""Static checks of the container files (no Docker engine is available to build them)."""

from __future__ import annotations

import pathlib
import re

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent


def dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text()


def test_dockerfile_runs_as_non_root_with_healthcheck_and_exec_cmd():
    text = dockerfile()
    users = re.findall(r"^USER\s+(\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*livez", text, re.M | re.S)
    assert re.search(r"^EXPOSE 8080", text, re.M)
    cmd = re.findall(r"^CMD (\[.*\])", text, re.M)[-1]
    assert cmd.startswith('["uvicorn"') and "app.main:app" in cmd


def test_every_file_the_dockerfile_copies_exists():
    for line in dockerfile().splitlines():
        if line.startswith("COPY") and "--from" not in line:
            for src in line.split()[1:-1]:
                assert (ROOT / src).exists(), src


def test_compose_runs_read_only_non_root_with_a_healthy_dependency():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    svc = compose["services"]["gangplank"]
    assert svc["read_only"] is True and svc["user"] == "10001" and "healthcheck" in svc
    client = compose["services"]["example-client"]
    assert client["depends_on"]["gangplank"]["condition"] == "service_healthy"
    assert any("volcano-small.json" in part for part in client["command"])
