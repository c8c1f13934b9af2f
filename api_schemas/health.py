from __future__ import annotations

from pydantic import BaseModel


class VersionInfo(BaseModel):
    name: str
    version: str
    python: str
    apis: list[str]


class Health(BaseModel):
    status: str
