"""k8s.io/kube-scheduler/extender/v1 wire types: Go field names, no JSON tags, null for unset.

Embedded Pods and Nodes are Kubernetes objects (camelCase), described loosely.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ExtenderArgs(BaseModel):
    Pod: dict[str, Any]
    Nodes: dict[str, Any] | None = Field(None, description="NodeList; set when nodeCacheCapable is false")
    NodeNames: list[str] | None = Field(None, description="set when nodeCacheCapable is true")


class ExtenderFilterResult(BaseModel):
    Nodes: dict[str, Any] | None
    NodeNames: list[str] | None
    FailedNodes: dict[str, str] | None
    FailedAndUnresolvableNodes: dict[str, str] | None
    Error: str


class HostPriority(BaseModel):
    Host: str
    Score: int = Field(ge=0, le=10)


class MetaPod(BaseModel):
    UID: str


class MetaVictims(BaseModel):
    Pods: list[MetaPod]
    NumPDBViolations: int


class ExtenderPreemptionArgs(BaseModel):
    Pod: dict[str, Any]
    NodeNameToVictims: dict[str, Any] | None = None
    NodeNameToMetaVictims: dict[str, Any] | None = None


class ExtenderPreemptionResult(BaseModel):
    NodeNameToMetaVictims: dict[str, MetaVictims] | None


class ExtenderBindingArgs(BaseModel):
    PodName: str
    PodNamespace: str
    PodUID: str
    Node: str


class ExtenderBindingResult(BaseModel):
    Error: str
