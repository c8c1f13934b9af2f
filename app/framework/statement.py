"""Tentative operations with undo: Volcano's Statement, KAI's checkpoints.

Every operation changes the session state at once (node accounting, task state, plugin
event handlers), so later steps of the same action see it. ``discard`` undoes the
operations in reverse order; ``commit`` hands them to the session as decisions.
Nothing of a discarded statement leaks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.model.cluster import Task, TaskStatus

if TYPE_CHECKING:
    from app.framework.session import Session

ALLOCATE, PIPELINE, EVICT = "allocate", "pipeline", "evict"


@dataclass(slots=True)
class Operation:
    kind: str
    task: Task
    node: int
    prev_status: TaskStatus
    prev_node: int
    eviction_occurred: bool = False
    reason: str = ""
    action: str = ""
    preemptor: str = ""


class Statement:
    __slots__ = ("ssn", "ops")

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.ops: list[Operation] = []

    # -- operations ---------------------------------------------------------------------
    def allocate(self, task: Task, node: int) -> None:
        """Place ``task`` on ``node``'s idle capacity (it will be bound)."""
        op = Operation(ALLOCATE, task, node, task.status, task.node)
        self.ssn.apply_allocate(task, node, TaskStatus.ALLOCATED)
        self.ops.append(op)

    def pipeline(self, task: Task, node: int, eviction_occurred: bool) -> None:
        """Reserve ``node``'s future-idle capacity; nominated if an eviction freed it."""
        op = Operation(PIPELINE, task, node, task.status, task.node, eviction_occurred=eviction_occurred)
        self.ssn.apply_allocate(task, node, TaskStatus.PIPELINED)
        self.ops.append(op)

    def evict(self, task: Task, reason: str, action: str, preemptor: str) -> None:
        op = Operation(EVICT, task, task.node, task.status, task.node, reason=reason, action=action, preemptor=preemptor)
        self.ssn.apply_evict(task)
        self.ops.append(op)

    # -- transactions --------------------------------------------------------------------
    def checkpoint(self) -> int:
        return len(self.ops)

    def rollback(self, checkpoint: int) -> None:
        while len(self.ops) > checkpoint:
            self._undo(self.ops.pop())

    def discard(self) -> None:
        self.rollback(0)

    def merge(self, other: Statement) -> None:
        """Adopt ``other``'s (already applied) operations, as Volcano's ``Merge``."""
        self.ops.extend(other.ops)
        other.ops = []

    def commit(self) -> None:
        self.ssn.record(self.ops)
        self.ops = []

    def cancel_evict(self, task: Task, at: int = -1) -> bool:
        """Put back one evicted task (the reverse pass): undo just that operation. ``at`` is
        where the caller expects the task's only eviction in this statement; it is checked,
        and the operation is searched from the end when it is not there."""
        ops = self.ops
        if 0 <= at < len(ops) and ops[at].kind == EVICT and ops[at].task is task:
            op = ops.pop(at)
            self._undo(op)
            return True
        for i in range(len(ops) - 1, -1, -1):
            op = ops[i]
            if op.kind == EVICT and op.task is task:
                del ops[i]
                self._undo(op)
                return True
        return False

    def _undo(self, op: Operation) -> None:
        if op.kind == EVICT:
            self.ssn.undo_evict(op.task, op.prev_status)
        else:
            self.ssn.undo_allocate(op.task, op.prev_status, op.prev_node)

    def __len__(self) -> int:
        return len(self.ops)
