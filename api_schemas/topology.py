"""``POST /v1/topology``: the HyperNode tree and LCA answers."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api_schemas.decision import DecisionRequest


class LcaQuery(BaseModel):
    nodes: list[str] = Field(min_length=1, description="Node names.")


class TopologyRequest(DecisionRequest):
    queries: list[LcaQuery] = Field([], description="Node sets to answer LCA / tier questions for.")


class HyperNodeInfo(BaseModel):
    name: str
    tier: int
    tierName: str | None
    parent: str | None
    children: list[str]
    nodeCount: int
    allocatable: dict[str, str]
    free: dict[str, str]


class LcaAnswer(BaseModel):
    nodes: list[str]
    lca: str
    tier: int


class TopologyResponse(BaseModel):
    root: str
    tiers: list[int]
    hyperNodes: list[HyperNodeInfo]
    answers: list[LcaAnswer]
