"""The action base class."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from app.framework.session import Session


class Action:
    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""

    def __init__(self, args: dict[str, Any]) -> None:
        self.args = args

    def execute(self, ssn: Session) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
