"""``POST /v1/render``: the decision request in, a picture of the decision out."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api_schemas.compare import CompareResponse
from api_schemas.decision import DecisionResponse


class RenderResponse(BaseModel):
    """The JSON form of a render (``?format=json`` or ``Accept: application/json``)."""

    svg: str = Field(description="The picture (image/svg+xml), as a string.")
    decision: DecisionResponse


class RenderVariantsResponse(BaseModel):
    """The JSON form of a render of `variants` (as for /v1/compare): every variant's picture
    side by side, and the comparison."""

    svg: str = Field(description="The pictures side by side (image/svg+xml); in every variant after the first, "
                     "nodes the first variant marks otherwise are framed in orange.")
    compare: CompareResponse
