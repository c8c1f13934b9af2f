"""``POST /v1/render``: the decision request in, a picture of the decision out."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api_schemas.decision import DecisionResponse


class RenderResponse(BaseModel):
    """The JSON form of a render (``?format=json`` or ``Accept: application/json``)."""

    svg: str = Field(description="The picture (image/svg+xml), as a string.")
    decision: DecisionResponse
