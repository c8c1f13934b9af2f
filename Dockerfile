# syntax=docker/dockerfile:1
# Gangplank: a stateless decision service. Multi-stage, slim, non-root, read-only root filesystem.
#   docker build -t gangplank .
#   docker run --rm --read-only -p 8080:8080 gangplank

FROM python:3.11-slim-bookworm AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /app
# A C compiler for the optional ingest kernels (app/ingest/kernels.c); only in this stage.
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
RUN python -m venv /app/.venv
# Only what the wheel is built from; the runtime dependencies come from pyproject.toml (no dev extras).
COPY pyproject.toml setup.py README.md ./
COPY app ./app
COPY api_schemas ./api_schemas
COPY gangplank ./gangplank
# Precompile everything: the root filesystem is read-only at runtime, so Python must never
# need to write a .pyc. unchecked-hash pycs stay valid whatever mtimes COPY gives the sources.
RUN /app/.venv/bin/pip install --no-compile . \
 && /app/.venv/bin/python -m compileall -q -f -j 0 --invalidation-mode unchecked-hash \
      /app/.venv/lib /app/app /app/api_schemas /app/gangplank

FROM python:3.11-slim-bookworm
ENV PATH=/app/.venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
# The base image ships its standard library without .pyc files; compile them once here so
# neither the server nor each HEALTHCHECK run recompiles urllib & co. in memory.
RUN python -m compileall -q -j 0 -x /site-packages/ /usr/local/lib/python3.11 \
 && groupadd --system --gid 10001 gangplank \
 && useradd --system --uid 10001 --gid gangplank --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin gangplank
WORKDIR /app
# Left owned by root: the service user can read and run its code, never rewrite it.
COPY --from=builder /app/.venv /app/.venv
COPY --from=builder /app/app /app/app
COPY --from=builder /app/api_schemas /app/api_schemas
COPY --from=builder /app/gangplank /app/gangplank
# the page at / offers this one example ("Load example")
COPY examples/volcano-small.json /app/examples/volcano-small.json
USER 10001
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/livez', timeout=2)"]
# app.serve runs uvicorn after the startup checks: on 0.0.0.0 it refuses to start unless
# authentication is configured (GANGPLANK_AUTH_TOKEN(S_FILE) or mTLS) or GANGPLANK_AUTH_DISABLED=true.
CMD ["python", "-m", "app.serve", "--host", "0.0.0.0", "--port", "8080", "--timeout-graceful-shutdown", "10"]
