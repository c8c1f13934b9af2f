"""A progress bar on stderr for long CLI runs, only when a person is watching.

The bar is drawn (rich) only when stderr is a terminal and the command's output is not
meant for a program (``--json``): piped or redirected stderr, CI logs and JSON output
never see a bar or an escape sequence. It is transient: it is erased when the work ends.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Bar:
    """``advance()`` a step, optionally naming the next one; a no-op when not shown."""

    def __init__(self, progress: Any = None, task: Any = None) -> None:
        self._progress = progress
        self._task = task

    @property
    def shown(self) -> bool:
        return self._progress is not None

    def advance(self, steps: int = 1, description: str | None = None) -> None:
        if self._progress is not None:
            kw = {"description": description} if description is not None else {}
            self._progress.update(self._task, advance=steps, **kw)

    def describe(self, description: str, total: int | None = None) -> None:
        if self._progress is not None:
            kw = {"total": total} if total is not None else {}
            self._progress.update(self._task, description=description, **kw)


def wanted(*, machine_output: bool = False, stream: Any = None) -> bool:
    """Draw a bar? Only for a terminal on stderr and output meant for a person."""
    stream = sys.stderr if stream is None else stream
    if machine_output:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


@contextmanager
def progress_bar(description: str, total: int | None, *, machine_output: bool = False) -> Iterator[Bar]:
    """A bar of ``total`` steps (``None``: a pulsing bar of unknown length) on stderr."""
    if not wanted(machine_output=machine_output):
        yield Bar()
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    # force_terminal: isatty() was checked above, so FORCE_COLOR & co. cannot turn it on elsewhere.
    console = Console(file=sys.stderr, force_terminal=True)
    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    # Redirect stdout through the bar only when both go to a terminal; otherwise stdout stays
    # untouched (a redirected stdout must receive exactly what the command prints).
    with Progress(*columns, console=console, transient=True, redirect_stdout=sys.stdout.isatty(),
                  redirect_stderr=False) as progress:  # fmt: skip
        task = progress.add_task(description, total=total)
        yield Bar(progress, task)
