"""``POST /v1/scores``: why a pod lands where it lands."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api_schemas.decision import DecisionRequest


class ScoresRequest(DecisionRequest):
    job: str = Field(description="namespace/name of the job whose pending tasks are scored")
    nodes: list[str] | None = Field(
        None,
        description="The candidate nodes to score (as kube-scheduler's prioritize and Volcano's score tests do: "
        "scores that compare nodes, e.g. tie-breaks, are computed among these); default: every node.",
    )


class NodeScore(BaseModel):
    total: float
    feasible: bool = Field(description="Passes every predicate (resource fit is not part of predicates). Under the "
                           "kai profile: a KAI FittingNode (the queue takes the task, it fits the node's idle + "
                           "releasing capacity, every predicate passes).")
    plugins: dict[str, float]


class HyperNodeScore(BaseModel):
    total: float
    plugins: dict[str, float]


class ScoresResponse(BaseModel):
    job: str
    task: str = Field(description="The pending task that was scored (the first in task order).")
    nodes: dict[str, NodeScore]
    hyperNodes: dict[str, HyperNodeScore] = Field(description="Includes the virtual root <cluster-top-hypernode>. "
                                                  "Empty under the kai profile: KAI scores nodes only.")
    warnings: list[str] = Field(default_factory=list, description="Scores the answer does not show, and why.")
