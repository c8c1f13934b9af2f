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
    def allocate(self, task: Task, node: int) -> bool:
        """Place ``task`` on ``node``'s idle capacity (it will be bound). False when an
        Allocate handler fails it (:meth:`_placed_one`)."""
        op = Operation(ALLOCATE, task, node, task.status, task.node)
        return self._placed_one(op, TaskStatus.ALLOCATED)

    def pipeline(self, task: Task, node: int, eviction_occurred: bool) -> bool:
        """Reserve ``node``'s future-idle capacity; nominated if an eviction freed it. False
        when an Allocate handler fails it (:meth:`_placed_one`)."""
        op = Operation(PIPELINE, task, node, task.status, task.node, eviction_occurred=eviction_occurred)
        return self._placed_one(op, TaskStatus.PIPELINED)

    def _placed_one(self, op: Operation, status: TaskStatus) -> bool:
        """Volcano's ``Statement.Allocate`` / ``Pipeline``: every Allocate handler runs; when one
        fails (``event.Err``: :meth:`Session.fail_allocation`) the placement is rolled back
        (``unallocate`` / ``unPipeline``: the Deallocate handlers run) and the call fails, with
        no operation recorded."""
        ssn = self.ssn
        ssn.alloc_error = None
        ssn.apply_allocate(op.task, op.node, status)
        if ssn.alloc_error is not None:
            ssn.alloc_error = None
            ssn.undo_allocate(op.task, op.prev_status, op.prev_node)
            return False
        self.ops.append(op)
        return True

    def place_many(self, tasks: list[Task], nodes: list[int], states: list[TaskStatus], eviction_occurred: bool) -> bool:
        """:meth:`allocate` (state Allocated) or :meth:`pipeline` (state Pipelined) for
        each task on its node, in order (one operation each), applied at once. One task is
        placed as those do (False: an Allocate handler failed it); a handler that may fail a
        placement has its tasks placed one at a time (``Session.on_pods_landing``)."""
        if len(tasks) == 1:
            if states[0] is TaskStatus.ALLOCATED:
                return self.allocate(tasks[0], nodes[0])
            return self.pipeline(tasks[0], nodes[0], eviction_occurred)
        self._placed(tasks, nodes, states, eviction_occurred)
        return True

    def _placed(self, tasks: list[Task], nodes: list[int], states: list[TaskStatus], eviction_occurred: bool) -> None:
        self.ops.extend(
            Operation(ALLOCATE, t, n, t.status, t.node) if s is TaskStatus.ALLOCATED
            else Operation(PIPELINE, t, n, t.status, t.node, eviction_occurred=eviction_occurred)
            for t, n, s in zip(tasks, nodes, states, strict=True)
        )  # fmt: skip
        self.ssn.apply_allocate_many(tasks, nodes, states)

    def evict_many(self, tasks: list[Task], reason: str, action: str, preemptor: str) -> None:
        """:meth:`evict` for each of ``tasks`` in order (one operation each), applied at once."""
        if len({id(t) for t in tasks}) != len(tasks):  # a task twice: one by one, as evict would
            for t in tasks:
                self.evict(t, reason, action, preemptor)
            return
        self.ops.extend(
            Operation(EVICT, t, t.node, t.status, t.node, reason=reason, action=action, preemptor=preemptor) for t in tasks
        )
        self.ssn.apply_evict_many(tasks)

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

    def cancel_evicts(self, tasks: list[Task]) -> None:
        """Put back each of ``tasks`` (each evicted once in this statement): their eviction
        operations are dropped and undone together."""
        if not tasks:
            return
        ids = {id(t) for t in tasks}
        undone = [op for op in self.ops if op.kind == EVICT and id(op.task) in ids]
        self.ops = [op for op in self.ops if not (op.kind == EVICT and id(op.task) in ids)]
        self.ssn.undo_evict_many([(op.task, op.prev_status) for op in undone])

    def cancel_evict(self, task: Task) -> bool:
        """Put back one evicted task (the reverse pass): undo just that operation."""
        ops = self.ops
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
