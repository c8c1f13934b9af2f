"""A typed HTTP client for Gangplank (httpx, sync and async).

    with Client("http://127.0.0.1:8080") as gp:
        decision = gp.decide({"objects": [...]})
        print(decision.bindings)

Answers are the pydantic models of ``api_schemas``; a 4xx/5xx raises
:class:`GangplankError` carrying the RFC 9457 problem. Connection errors, 429 and 5xx are
retried with a short backoff.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from typing import Any

import httpx
import orjson

from api_schemas.compare import CompareResponse
from api_schemas.decision import DecisionResponse
from api_schemas.render import RenderResponse
from api_schemas.scores import ScoresResponse
from api_schemas.simulate import SimulateResponse, SimulateVariantsResponse
from api_schemas.topology import TopologyResponse

RETRY_STATUS = frozenset({429, 502, 503, 504})


class GangplankError(Exception):
    """An error answer: ``status`` and the problem document (``problem["errors"]`` has pointers)."""

    def __init__(self, status: int, problem: dict[str, Any]) -> None:
        super().__init__(f"{status}: {problem.get('detail', problem)}")
        self.status = status
        self.problem = problem


def _check(r: httpx.Response) -> Any:
    if r.status_code >= 400:
        try:
            problem = r.json()
        except ValueError:
            problem = {"detail": r.text}
        raise GangplankError(r.status_code, problem if isinstance(problem, dict) else {"detail": problem})
    return r.json()


class Client:
    """``verify``: True, False or an ``ssl.SSLContext`` (a CA bundle, and a client
    certificate for a server that asks for mTLS: see ``gangplank.cli.tls_context``)."""

    def __init__(self, base_url: str = "http://127.0.0.1:8080", *, timeout: float = 30.0, retries: int = 2,
                 token: str | None = None, transport: httpx.BaseTransport | None = None,
                 verify: ssl.SSLContext | bool = True) -> None:  # fmt: skip
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(base_url=base_url, timeout=timeout, headers=headers, transport=transport, verify=verify)
        self.retries = retries

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        data = orjson.dumps(body)
        for attempt in range(self.retries + 1):
            try:
                r = self._http.post(path, content=data, headers={"Content-Type": "application/json"})
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
                time.sleep(0.2 * 2**attempt)
                continue
            if r.status_code in RETRY_STATUS and attempt < self.retries:
                time.sleep(0.2 * 2**attempt)
                continue
            return _check(r)
        raise AssertionError("unreachable")  # pragma: no cover

    def decide(self, body: dict[str, Any]) -> DecisionResponse:
        return DecisionResponse.model_validate(self._post("/v1/decisions", body))

    def scores(self, body: dict[str, Any], job: str) -> ScoresResponse:
        return ScoresResponse.model_validate(self._post("/v1/scores", {**body, "job": job}))

    def simulate(self, body: dict[str, Any], cycles: int = 3) -> SimulateResponse:
        return SimulateResponse.model_validate(self._post("/v1/simulate", {**body, "cycles": cycles}))

    def topology(self, body: dict[str, Any], queries: list[list[str]] | None = None) -> TopologyResponse:
        q = [{"nodes": n} for n in (queries or [])]
        return TopologyResponse.model_validate(self._post("/v1/topology", {**body, "queries": q}))

    def render(self, body: dict[str, Any]) -> RenderResponse:
        """The decision and its picture (``svg``: an SVG document as a string)."""
        return RenderResponse.model_validate(self._post("/v1/render?format=json", body))

    def simulate_variants(self, body: dict[str, Any], variants: list[dict[str, Any]], cycles: int = 3) -> SimulateVariantsResponse:
        """:meth:`simulate` of the snapshot ``body`` (without ``config``) under each variant."""
        return SimulateVariantsResponse.model_validate(self._post("/v1/simulate", {**body, "cycles": cycles, "variants": variants}))

    def compare(self, body: dict[str, Any], variants: list[dict[str, Any]]) -> CompareResponse:
        """The snapshot ``body`` (without ``config``) under each variant (``name``, ``config``,
        optional ``objects`` / ``cluster`` to add or replace), and each against the first."""
        return CompareResponse.model_validate(self._post("/v1/compare", {**body, "variants": variants}))


class AsyncClient:
    def __init__(self, base_url: str = "http://127.0.0.1:8080", *, timeout: float = 30.0, retries: int = 2,
                 token: str | None = None, transport: httpx.AsyncBaseTransport | None = None,
                 verify: ssl.SSLContext | bool = True) -> None:  # fmt: skip
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.AsyncClient(base_url=base_url, timeout=timeout, headers=headers, transport=transport,
                                       verify=verify)  # fmt: skip
        self.retries = retries

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _post(self, path: str, body: dict[str, Any]) -> Any:
        data = orjson.dumps(body)
        for attempt in range(self.retries + 1):
            try:
                r = await self._http.post(path, content=data, headers={"Content-Type": "application/json"})
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
                await asyncio.sleep(0.2 * 2**attempt)
                continue
            if r.status_code in RETRY_STATUS and attempt < self.retries:
                await asyncio.sleep(0.2 * 2**attempt)
                continue
            return _check(r)
        raise AssertionError("unreachable")  # pragma: no cover

    async def decide(self, body: dict[str, Any]) -> DecisionResponse:
        return DecisionResponse.model_validate(await self._post("/v1/decisions", body))

    async def simulate(self, body: dict[str, Any], cycles: int = 3) -> SimulateResponse:
        return SimulateResponse.model_validate(await self._post("/v1/simulate", {**body, "cycles": cycles}))

    async def compare(self, body: dict[str, Any], variants: list[dict[str, Any]]) -> CompareResponse:
        return CompareResponse.model_validate(await self._post("/v1/compare", {**body, "variants": variants}))
