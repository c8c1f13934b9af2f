"""Service settings, read from ``GANGPLANK_*`` environment variables."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

#: A limit: never negative (a negative one would refuse everything or, in C's integer
#: arithmetic, let something through); 0 means what each setting says.
Limit = Annotated[int, Field(ge=0)]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GANGPLANK_", extra="ignore")

    #: Largest request body accepted (bytes). Larger bodies get 413.
    max_body_bytes: Limit = 64 * 1024 * 1024
    #: Most Kubernetes objects (after flattening Lists) one request may carry.
    max_objects: Limit = 500_000
    #: Most values a YAML body may expand to once anchors/aliases are resolved.
    max_yaml_nodes: Limit = 5_000_000
    #: Deepest HyperNode tree accepted (levels of HyperNodes above a node).
    max_hypernode_depth: Limit = 16
    #: Longest HyperNode ``regexMatch`` pattern accepted (characters).
    max_regex_length: Limit = 1024
    #: Longest a client may take to send one request, headers and body (seconds; 0: no
    #: limit), from the connection or a kept-alive request's first byte (app/serve.py).
    read_timeout_seconds: Annotated[float, Field(ge=0)] = 60.0
    #: Memory the requests in flight on one worker may take, estimated before parsing as
    #: ``MEMORY_PER_BODY_BYTE`` × body bytes (MiB); a body whose estimate alone exceeds it
    #: is a 413, one that does not fit beside those in flight a 503 with Retry-After.
    memory_budget_mb: Limit = 3072
    #: Most requests in flight per worker (probes and /metrics not counted); past it 429.
    max_requests_in_flight: Limit = 32
    #: Deadline of one decision when the request does not set ``options.deadlineMs``.
    default_deadline_ms: Limit = 5_000
    #: Largest ``options.deadlineMs`` a request may ask for.
    max_deadline_ms: Limit = 60_000
    # Object metadata (Kubernetes' own apiserver limits; see app/ingest/metalimits.py).
    #: Total bytes of one object's annotation keys and values.
    max_annotations_bytes: Limit = 256 * 1024
    #: Longest label value (characters).
    max_label_value_length: Limit = 63
    #: Longest label key name part (after the optional ``prefix/``).
    max_label_name_length: Limit = 63
    #: Longest label key prefix (a DNS subdomain).
    max_label_prefix_length: Limit = 253
    # Authentication (app/auth.py) and TLS (app/serve.py).
    #: One bearer token accepted on /v1/* and /extender/*.
    auth_token: str = ""
    #: A file of bearer tokens, one per line (# comments); re-read when it changes.
    auth_tokens_file: str = ""
    #: Comma-separated client-certificate names (CN or SAN) allowed; empty = any verified cert.
    auth_client_names: str = ""
    #: Comma-separated client-certificate names allowed on /extender/* (kube-scheduler's);
    #: with this or extender_token set, the API's credentials no longer pass there.
    extender_client_names: str = ""
    #: A bearer token accepted on /extender/* only.
    extender_token: str = ""
    #: Put /metrics behind the API's credentials (it is open by default for Prometheus).
    metrics_auth: bool = False
    #: Explicit opt-out: serve without authentication on a non-loopback address.
    auth_disabled: bool = False
    #: Serving certificate and key (PEM); with ssl_ca_certs, client certificates are verified.
    ssl_certfile: str = ""
    ssl_keyfile: str = ""
    ssl_ca_certs: str = ""
    #: 0 none, 1 optional, 2 required (handshake refused without a client certificate).
    ssl_cert_reqs: Annotated[int, Field(ge=0, le=2)] = 2


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
