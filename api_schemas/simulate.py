"""``POST /v1/simulate``: multi-cycle what-if."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api_schemas.compare import CompareVariant
from api_schemas.decision import DecisionRequest, DecisionResponse


class SimulateRequest(DecisionRequest):
    cycles: int = Field(3, ge=1, le=50, description="Cycles to run (stops early when nothing changes).")
    variants: list[CompareVariant] | None = Field(
        None, min_length=2, max_length=8,
        description="As for /v1/compare: simulate the snapshot (then without `config`) under each variant; the "
        "answer is then a SimulateVariantsResponse.",
    )


class FinalPod(BaseModel):
    pod: str
    node: str | None
    phase: str
    nominatedNode: str | None = Field(
        None, description="A Pending pod's nominated node (a nomination, or the node a moved pod is re-created on)."
    )


class FinalState(BaseModel):
    pods: list[FinalPod]


class SimulateMetrics(BaseModel):
    cycles: int
    bindings: int
    nominations: int
    evictions: int
    gangsBroken: int
    cascadingPreemptions: int = Field(description="Jobs that lost pods and later evicted others.")


class SimulateResponse(BaseModel):
    cycles: list[DecisionResponse]
    final: FinalState
    metrics: SimulateMetrics


class VariantSimulation(SimulateResponse):
    name: str


class SimulationDiff(BaseModel):
    base: str
    variant: str
    metrics: dict[str, int] = Field(description="This variant's metrics minus the base's.")


class SimulateVariantsResponse(BaseModel):
    variants: list[VariantSimulation]
    diffs: list[SimulationDiff] = Field(description="Each variant after the first against the first.")
