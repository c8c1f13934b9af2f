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
* **Victims placed by an earlier action** of the same decision (KAI counts a Pipelined
  or Allocated pod as active, so it can be a victim): evicting one frees its reservation
  as KAI's node accounting does (a pipelined pod becomes a releasing one), and the commit
  withdraws its binding or nomination from the answer instead of evicting a pod that
  never ran (a moved one is nominated on its new node).
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
        if task.status is TaskStatus.PIPELINED:  # placed by an earlier action: its reservation becomes a releasing pod
            self._reservation(task, released=True)
        super().evict(task, reason, action, preemptor)
        self.virtual.add(id(task))

    def _reservation(self, task: Task, released: bool) -> None:
        """A pipelined pod's request moved from the node's ``pipelined`` to its ``used``
        (``released``: it is evicted, a releasing pod now) or back (the eviction undone)."""
        c = self.ssn.cluster
        src, dst = (c.pipelined, c.used) if released else (c.used, c.pipelined)
        src[task.node] -= task.req
        dst[task.node] += task.req

    def evict_batch(self, tasks: list[Task], reasons: list[str], action: str, preemptor: str) -> None:
        """:meth:`evict` of each task in order (one operation each, with its reason), the
        accounting applied at once when none is Pipelined and none comes twice."""
        if len({id(t) for t in tasks}) != len(tasks) or any(t.status is TaskStatus.PIPELINED for t in tasks):
            for t, why in zip(tasks, reasons, strict=True):
                self.evict(t, why, action, preemptor)
            return
        self.ops.extend(Operation(EVICT, t, t.node, t.status, t.node, reason=why, action=action, preemptor=preemptor)
                        for t, why in zip(tasks, reasons, strict=True))  # fmt: skip
        self.ssn.apply_evict_many(tasks)
        self.virtual.update(id(t) for t in tasks)

    def pipeline_many(self, tasks: list[Task], nodes: list[int]) -> None:
        """``pipeline(task, node, eviction_occurred=True)`` for each task on its node, in
        order, applied at once: the solver's runs of placements it already knows (none of
        them an un-evict)."""
        self._placed(tasks, nodes, [TaskStatus.PIPELINED] * len(tasks), True)

    def rollback(self, checkpoint: int) -> None:
        """Undo back to ``checkpoint``, in reverse order. A run of evictions of tasks that
        were not Pipelined is put back at once, and so is a run of placements (Allocate or
        Pipeline) of distinct tasks: the same accounting, in the same order."""
        ops = self.ops
        while len(ops) > checkpoint:
            op = ops[-1]
            if op.kind == EVICT and op.prev_status is not TaskStatus.PIPELINED:
                run: list[tuple[Task, TaskStatus]] = []
                while len(ops) > checkpoint and ops[-1].kind == EVICT and ops[-1].prev_status is not TaskStatus.PIPELINED:
                    op = ops.pop()
                    run.append((op.task, op.prev_status))
                    self.virtual.discard(id(op.task))
                self.ssn.undo_evict_many(run)
            elif op.kind in (ALLOCATE, PIPELINE):
                placed: list[tuple[Task, TaskStatus, int]] = []
                seen: set[int] = set()
                while len(ops) > checkpoint and ops[-1].kind in (ALLOCATE, PIPELINE) and id(ops[-1].task) not in seen:
                    op = ops.pop()
                    seen.add(id(op.task))
                    placed.append((op.task, op.prev_status, op.prev_node))
                self.ssn.undo_allocate_many(placed)
            else:
                self._undo(ops.pop())

    def evicted_here(self, task: Task) -> Operation | None:
        for op in self.ops:
            if op.kind == EVICT and op.task is task and self._valid(op):
                return op
        return None

    def pipeline_kai(self, task: Task, node: int, update_if_on_node: bool, groups: tuple[str, ...] | None = None) -> None:
        """KAI's ``Statement.Pipeline``: a victim pipelined back onto the node it was evicted
        from (by this statement) is un-evicted, unless it is a ``gpu-fraction`` pod given
        other GPU groups there (a move to another GPU of its node); ``groups``: the GPU
        groups chosen for a fraction pod."""
        gs = self.ssn.gpu_sharing
        if not update_if_on_node and task.status is TaskStatus.RELEASING and task.node == node:
            ev = self.evicted_here(task)
            if ev is not None and groups is not None and gs is not None and sorted(groups) != sorted(gs.groups_of(task)):
                ev = None  # isSharedAndMoveToDifferentGPU (the same GPUs in another order are the same GPUs)
            if ev is not None:
                self.ssn.undo_evict(task, ev.prev_status)
                if ev.prev_status is TaskStatus.PIPELINED:
                    self._reservation(task, released=False)
                self.virtual.discard(id(task))
                op = Operation(UNEVICT, task, node, TaskStatus.RELEASING, node)
                self.undone[id(op)] = ev
                self.ops.append(op)
                return
        if groups is not None:
            gs.chosen[id(task)] = groups
        self.pipeline(task, node, eviction_occurred=True)

    def to_pipelined(self) -> None:
        """``ConvertAllAllocatedToPipelined``: every allocation of the statement becomes a
        pipelined placement on the same node (its operations replayed in order)."""
        ops = list(self.ops)
        assert all(op.kind in (ALLOCATE, PIPELINE) for op in ops), "only placements are converted"
        gs = self.ssn.gpu_sharing
        groups = [gs.groups_of(op.task) if gs is not None and gs.shared(op.task) else None for op in ops]
        self.rollback(0)
        for op, g in zip(ops, groups, strict=True):
            if g is not None:
                gs.chosen[id(op.task)] = g  # the same GPU groups
            self.pipeline(op.task, op.node, eviction_occurred=True)

    def _undo(self, op: Operation) -> None:
        if op.kind == UNEVICT:
            ev = self.undone.pop(id(op))
            if ev.prev_status is TaskStatus.PIPELINED:
                self._reservation(op.task, released=True)
            self.ssn.apply_evict(op.task)
            self.virtual.add(id(op.task))
            return
        if op.kind == EVICT:
            self.virtual.discard(id(op.task))
        super()._undo(op)
        if op.kind == EVICT and op.prev_status is TaskStatus.PIPELINED:
            self._reservation(op.task, released=False)

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
        groups = ssn.gpu_groups
        # a victim an earlier action placed in this decision (bound or nominated, not running):
        # that placement is withdrawn instead of evicting a pod that never ran
        withdrawn = {op.task.key for op in self.ops
                     if op.kind == EVICT and self._valid(op) and op.prev_status in (TaskStatus.PIPELINED, TaskStatus.ALLOCATED)}
        earlier: dict[str, Eviction] = {}  # a moved victim moved again (or now only evicted)
        if withdrawn:
            decision.bindings = [b for b in decision.bindings if b.pod not in withdrawn]
            decision.nominations = [b for b in decision.nominations if b.pod not in withdrawn]
            earlier = {e.pod: e for e in decision.evictions if e.pod in withdrawn and e.move_to is not None}
        for op in self.ops:
            t = op.task
            job = t.job.key if t.job else t.key
            if op.kind == ALLOCATE:
                ssn.messages.pop(job, None)
                decision.bindings.append(Binding(t.key, names[op.node].name, job, groups(t)))
            elif op.kind == PIPELINE and t.key in earlier:
                e = earlier[t.key]
                e.move_to = names[op.node].name
                e.move_to_groups = groups(t)
                e.reason += f"; then {op.preemptor or 'another job'} moves it on to node {e.move_to}"
            elif op.kind == PIPELINE and (id(t) not in moved or t.key in withdrawn):
                ssn.messages.pop(job, None)
                decision.nominations.append(Binding(t.key, names[op.node].name, job, groups(t)))
            elif op.kind == EVICT and self._valid(op) and t.key in earlier:
                e = earlier[t.key]
                if id(t) not in moved:
                    e.move_to = None
                    e.move_to_groups = ()
                    e.reason += f"; {op.reason} (not moved after all)"
            elif op.kind == EVICT and self._valid(op) and t.key in withdrawn:
                ssn.messages[job] = f"{op.reason}: its placement in this decision is withdrawn"
            elif op.kind == EVICT and self._valid(op):
                to = moved.get(id(t))
                dest = None if to is None else names[to].name
                reason = op.reason if dest is None else f"{op.reason}; moves to node {dest}"
                decision.evictions.append(Eviction(t.key, names[op.node].name, job, op.action, op.preemptor, reason, dest,
                                                   groups(t) if dest is not None else ()))  # fmt: skip
            self.virtual.discard(id(t))
        self.ops = []
        self.undone = {}
