"""Client errors as RFC 9457 problem details.

Every error a client can cause is raised as :class:`InputError` (or a subclass) carrying a
JSON pointer into the request body and, where known, the Kubernetes object it concerns.
The HTTP layer turns it into an ``application/problem+json`` answer; nothing a client
sends may surface as a 5xx.
"""

from __future__ import annotations

from typing import Any

PROBLEM_BASE = "https://gangplank.dev/problems/"


def escape_pointer_token(token: str | int) -> str:
    """Escape one reference token of an RFC 6901 JSON pointer."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape_pointer_token(token: str) -> str:
    """One reference token of an RFC 6901 JSON pointer as the name it escapes."""
    return token.replace("~1", "/").replace("~0", "~")


def join_pointer(base: str, *tokens: str | int) -> str:
    """Append reference tokens to a JSON pointer (``""`` is the whole document)."""
    if len(tokens) == 1:  # the common case, on every object read: keep it cheap
        t = tokens[0]
        if type(t) is str and "~" not in t and "/" not in t:
            return base + "/" + t
        return base + "/" + escape_pointer_token(t)
    return base + "".join("/" + escape_pointer_token(t) for t in tokens)


class InputError(Exception):
    """A request the service cannot act on, and exactly where it goes wrong."""

    status = 422
    kind = "invalid-input"
    title = "The request is not valid"

    def __init__(
        self,
        detail: str,
        pointer: str = "",
        obj: dict[str, str] | None = None,
        *,
        status: int | None = None,
        kind: str | None = None,
        title: str | None = None,
        more: list[InputError] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.pointer = pointer
        self.obj = obj
        #: further errors found with this one (a webhook that aggregates its field errors): listed after it in ``errors``
        self.more = list(more or [])
        if status is not None:
            self.status = status
        if kind is not None:
            self.kind = kind
        if title is not None:
            self.title = title

    def entry(self) -> dict[str, Any]:
        err: dict[str, Any] = {"pointer": self.pointer, "detail": self.detail}
        if self.obj:
            err["object"] = self.obj
        return err

    def problem(self) -> dict[str, Any]:
        return {
            "type": PROBLEM_BASE + self.kind,
            "title": self.title,
            "status": self.status,
            "detail": self.detail if not self.obj else f"{describe(self.obj)}: {self.detail}",
            "errors": [self.entry()] + [e.entry() for e in self.more],
        }


class LimitError(InputError):
    """A configured limit was exceeded (body size, object count, nesting, ...)."""

    status = 413
    kind = "limit-exceeded"
    title = "A request limit was exceeded"


class Busy(InputError):
    """The worker cannot take this request now (its memory budget is spoken for): retry."""

    status = 503
    kind = "busy"
    title = "Busy: retry later"
    retry_after = 1


class UnsupportedMediaType(InputError):
    status = 415
    kind = "unsupported-media-type"
    title = "Unsupported media type"


def describe(obj: dict[str, str]) -> str:
    kind = obj.get("kind", "object")
    ns = obj.get("namespace")
    name = obj.get("name", "")
    return f"{kind} {ns}/{name}" if ns else f"{kind} {name}"
