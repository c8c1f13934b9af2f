"""Service settings, read from ``GANGPLANK_*`` environment variables."""

from __future__ import annotations

from functools import lru_cache

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GANGPLANK_", extra="ignore")

    #: Largest request body accepted (bytes). Larger bodies get 413.
    max_body_bytes: int = 64 * 1024 * 1024
    #: Most Kubernetes objects (after flattening Lists) one request may carry.
    max_objects: int = 500_000
    #: Most values a YAML body may expand to once anchors/aliases are resolved.
    max_yaml_nodes: int = 5_000_000
    #: Deepest HyperNode tree accepted (levels of HyperNodes above a node).
    max_hypernode_depth: int = 16
    #: Longest HyperNode ``regexMatch`` pattern accepted (characters).
    max_regex_length: int = 1024
    #: Deadline of one decision when the request does not set ``options.deadlineMs``.
    default_deadline_ms: int = 5_000
    #: Largest ``options.deadlineMs`` a request may ask for.
    max_deadline_ms: int = 60_000


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
