# syntax=docker/dockerfile:1
# Gangplank: a stateless decision service. Multi-stage, slim, non-root, read-only friendly.

FROM python:3.11-slim-bookworm AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
RUN python -m venv /app/.venv
COPY pyproject.toml README.md ./
COPY app ./app
COPY api_schemas ./api_schemas
RUN /app/.venv/bin/pip install . \
 && /app/.venv/bin/python -m compileall -q /app/.venv /app/app /app/api_schemas

FROM python:3.11-slim-bookworm
ENV PATH=/app/.venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
RUN groupadd --system --gid 10001 gangplank \
 && useradd --system --uid 10001 --gid gangplank --no-create-home --home-dir /nonexistent gangplank
WORKDIR /app
COPY --from=builder --chown=10001:10001 /app /app
USER 10001
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["python", "-c", "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8080/livez', timeout=2).status == 200 else 1)"]
CMD ["uvicorn", "app.main:app", "--host", "0.0.0.0", "--port", "8080", "--timeout-graceful-shutdown", "10"]
