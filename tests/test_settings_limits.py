"""Settings: a limit is never negative (refused when the settings are read)."""

from __future__ import annotations

import pydantic
import pytest

from app.settings import Settings

LIMITS = ["max_body_bytes", "max_objects", "max_yaml_nodes", "max_hypernode_depth", "max_regex_length", "memory_budget_mb",
          "max_requests_in_flight", "default_deadline_ms", "max_deadline_ms", "max_annotations_bytes",
          "max_label_value_length", "max_label_name_length", "max_label_prefix_length", "read_timeout_seconds"]  # fmt: skip


@pytest.mark.parametrize("name", LIMITS)
def test_a_negative_limit_is_refused_when_the_settings_are_read(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(pydantic.ValidationError, match=name):
        Settings(**{name: -1})
    monkeypatch.setenv(f"GANGPLANK_{name.upper()}", "-1")
    with pytest.raises(pydantic.ValidationError, match=name):
        Settings()
    monkeypatch.setenv(f"GANGPLANK_{name.upper()}", "0")
    assert getattr(Settings(), name) == 0  # 0 means what each setting says (often: none)


@pytest.mark.parametrize("value", [-1, 3])
def test_ssl_cert_reqs_is_0_1_or_2(value: int) -> None:
    with pytest.raises(pydantic.ValidationError, match="ssl_cert_reqs"):
        Settings(ssl_cert_reqs=value)
