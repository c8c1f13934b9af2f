"""``POST /v1/compare``: one snapshot under several configurations, and what changes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from api_schemas.decision import DecisionOptions, DecisionResponse, KubeObject
from api_schemas.native import NativeCluster


class CompareVariant(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=63, description="Unique among the variants; the first is the base.")
    config: dict[str, Any] | str | None = Field(
        None, description="This variant's scheduler configuration (as `config` of /v1/decisions)."
    )
    objects: list[KubeObject] | None = Field(
        None, description="Kubernetes objects this variant adds, or replaces (same API group, kind, namespace, name)."
    )
    cluster: dict[str, list[dict[str, Any]]] | None = Field(
        None, description="Native records this variant adds, or replaces (same namespace and name), per array "
        "of the native form (e.g. `queues`); not `podColumns`.",
    )


class CompareRequest(BaseModel):
    """A snapshot as for /v1/decisions (without `config`) and 2 to 8 variants."""

    objects: list[KubeObject] | KubeObject | None = None
    cluster: NativeCluster | None = None
    options: DecisionOptions | None = None
    variants: list[CompareVariant] = Field(min_length=2, max_length=8)


class QueueSummary(BaseModel):
    gpus: int = Field(description="GPUs its pods hold once the decision takes effect.")
    share: float = Field(description="Dominant share of the cluster it holds then (largest fraction on any resource).")
    deservedShare: float | None = Field(
        description="Dominant share it deserves by the configuration's queue plugin (capacity, proportion or "
        "KAI's fair share); null without one."
    )


class VariantSummary(BaseModel):
    bound: int
    nominated: int
    podsEvicted: int
    gangsBroken: int = Field(description="Running gangs an eviction leaves below their minimum.")
    gpusHeld: int = Field(description="GPUs held once the decision takes effect (evicted pods gone, bound pods in).")
    jobsPending: int
    queues: dict[str, QueueSummary]


class VariantAnswer(BaseModel):
    name: str
    decision: DecisionResponse
    summary: VariantSummary


class Place(BaseModel):
    node: str
    hyperNode: str | None
    how: Literal["bind", "nominate"]


class PlacementChange(BaseModel):
    pod: str
    job: str
    from_: Place | None = Field(alias="from", description="In the base variant; null: not placed there.")
    to: Place | None = Field(description="In this variant; null: not placed here.")


class JobChange(BaseModel):
    job: str
    from_: str | None = Field(alias="from", description="Its state in the base variant.")
    to: str


class EvictionRef(BaseModel):
    pod: str
    job: str
    node: str
    preemptor: str


class VariantDiff(BaseModel):
    base: str
    variant: str
    jobs: list[JobChange] = Field(description="Jobs whose state differs.")
    placements: list[PlacementChange] = Field(description="Pods bound or nominated elsewhere, or in one variant only.")
    evictionsOnlyInVariant: list[EvictionRef]
    evictionsOnlyInBase: list[EvictionRef]
    counts: dict[str, int] = Field(description="This variant's summary counts minus the base's.")


class CompareResponse(BaseModel):
    variants: list[VariantAnswer]
    diffs: list[VariantDiff] = Field(description="Each variant after the first against the first.")
    warnings: list[str]
