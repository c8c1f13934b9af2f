"""KAI's Statement (``framework/statement.go``) on top of Gangplank's.

What KAI adds:

* **Un-evict.** ``pipeline(task, node, update_if_on_node=False)`` of a task that this
  statement evicted from that very node undoes the eviction instead (the earliest valid
  Evict of the task; recorded as an operation, so a rollback past it evicts again).
* **Virtual status.** A task evicted by an open statement is "virtually Releasing":
  simulations may place it again (``KaiContext.virtual``); a commit makes it real.
* **Commit** (spec section 15): Allocate → a binding; Pipeline of a task that was not
  evicted in this statement → a nomination; Evict of a task that ends Releasing → an
  eviction; Evict then Pipeline of the same task elsewhere (a moved victim) → one
  eviction with ``move_to`` (KAI pipelines the pod's replacement there); an evict that
  was undone → nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.framework.statement import ALLOCATE, EVICT, PIPELINE, Operation, Statement
from app.model.cluster import Task, TaskStatus
from app.model.decision import Binding, Eviction

if TYPE_CHECKING:
    from app.framework.session import Session

UNEVICT = "unevict"


class KaiStatement(Statement):
    __slots__ = ("virtual", "undone")

    def __init__(self, ssn: Session, virtual: set[int]) -> None:
        super().__init__(ssn)
        self.virtual = virtual  # shared: ids of tasks an open statement evicted
        self.undone: dict[int, Operation] = {}  # id(unevict op) -> the evict it undid

    def _valid(self, op: Operation) -> bool:
        return not any(ev is op for ev in self.undone.values())

    def evict(self, task: Task, reason: str, action: str, preemptor: str) -> None:
        super().evict(task, reason, action, preemptor)
        self.virtual.add(id(task))

    def evicted_here(self, task: Task) -> Operation | None:
        for op in self.ops:
            if op.kind == EVICT and op.task is task and self._valid(op):
                return op
        return None

    def pipeline_kai(self, task: Task, node: int, update_if_on_node: bool) -> None:
        if not update_if_on_node and task.status is TaskStatus.RELEASING and task.node == node:
            ev = self.evicted_here(task)
            if ev is not None:
                self.ssn.undo_evict(task, ev.prev_status)
                self.virtual.discard(id(task))
                op = Operation(UNEVICT, task, node, TaskStatus.RELEASING, node)
                self.undone[id(op)] = ev
                self.ops.append(op)
                return
        self.pipeline(task, node, eviction_occurred=True)

    def _undo(self, op: Operation) -> None:
        if op.kind == UNEVICT:
            self.undone.pop(id(op))
            self.ssn.apply_evict(op.task)
            self.virtual.add(id(op.task))
            return
        if op.kind == EVICT:
            self.virtual.discard(id(op.task))
        super()._undo(op)

    def commit(self) -> None:
        ssn = self.ssn
        names = ssn.cluster.nodes
        moved: dict[int, int] = {}  # id(task) -> node it was pipelined to after its eviction
        evicted: set[int] = set()
        for op in self.ops:
            if op.kind == EVICT and self._valid(op):
                evicted.add(id(op.task))
            elif op.kind == PIPELINE and id(op.task) in evicted:
                moved[id(op.task)] = op.node
        decision = ssn.decision
        for op in self.ops:
            t = op.task
            job = t.job.key if t.job else t.key
            if op.kind == ALLOCATE:
                ssn.messages.pop(job, None)
                decision.bindings.append(Binding(t.key, names[op.node].name, job))
            elif op.kind == PIPELINE and id(t) not in moved:
                ssn.messages.pop(job, None)
                decision.nominations.append(Binding(t.key, names[op.node].name, job))
            elif op.kind == EVICT and self._valid(op):
                to = moved.get(id(t))
                dest = None if to is None else names[to].name
                reason = op.reason if dest is None else f"{op.reason}; moves to node {dest}"
                decision.evictions.append(Eviction(t.key, names[op.node].name, job, op.action, op.preemptor, reason, dest))
            self.virtual.discard(id(t))
        self.ops = []
        self.undone = {}
