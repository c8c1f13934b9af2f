"""The solver's placement memo: the same task asked of the same nodes in the same simulated
state gets the same node, without scoring the nodes again.

KAI's JobSolver grows the preemptor one task at a time and simulates every step from the
same starting state (the statements of earlier steps and failed scenarios are undone
whole), so step k+1 repeats step k's evictions and placements before it differs. Within
one ``JobSolver.solve`` the simulated state is the starting state plus the statement's
live operations, in order: a rollback pops them, a new operation pushes one. The memo
keeps those sequences in a trie (one node per operation: its kind, task and node); a
node's answers are the :func:`~app.kai.allocate.best_node` results asked in that state,
and the node sets a job's set or pod set was tried on there (``subset_nodes``: its
topology domains, for the tasks it placed). Both read nothing but that state, the task or
job and the nodes (the session's settings are fixed), so an answer found there is the
answer. A task with preferred-level node scores is never answered from the memo: its
scores come from the sizes of the attempt, not from the state alone.

What the memo relies on, and the solver guarantees: every statement it sees starts from
the state the memo was opened on (one statement open at a time, each undone before the
next one opens); operations are only pushed and popped (no statement of the solver
removes one from the middle: ``cancel_evict`` and ``merge`` are not used on it); and
undoing an operation restores the state exactly (integer node accounting; the fair-share
sums in GPUs, millicores and bytes, whole numbers in float64, add and subtract exactly).
That last holds only without fractions of a GPU and within what float64 holds exactly: the solver opens a memo
only when :func:`app.plugins.kai_fairshare.exact_sums` says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from app.framework.statement import PIPELINE, Operation, Statement
from app.model.cluster import TaskStatus

T = TypeVar("T")

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Sequence

    from app.model.cluster import Task


class _State:
    __slots__ = ("children", "answers", "sets")

    def __init__(self) -> None:
        self.children: dict[tuple[str, int, int], _State] = {}
        self.answers: dict[tuple[int, bytes], int | None] = {}
        self.sets: dict[tuple[str, Any, bytes], Any] = {}


class PlacementMemo:
    __slots__ = ("root", "stmt", "ops", "path", "arrays", "interned", "hits", "misses")

    def __init__(self) -> None:
        self.root = _State()
        self.stmt: Statement | None = None
        self.ops: list[Operation] = []  # the statement's operations as last seen
        self.path: list[_State] = [self.root]  # path[i]: the state after ops[:i]
        self.arrays: dict[int, tuple[np.ndarray, bytes]] = {}  # id(nodes) -> (nodes, its key)
        self.interned: dict[bytes, bytes] = {}
        self.hits = 0
        self.misses = 0

    def _state(self, stmt: Statement) -> _State:
        """The trie node of ``stmt``'s live operations."""
        ops = stmt.ops
        if stmt is not self.stmt:  # a new statement: it starts from the memo's starting state
            self.stmt, self.ops, self.path = stmt, [], [self.root]
            self.arrays.clear()
        seen = self.ops
        same = min(len(seen), len(ops))
        # operations are pushed and popped: the last position holding the same operation
        # object ends the common prefix
        while same and seen[same - 1] is not ops[same - 1]:
            same -= 1
        del seen[same:]
        del self.path[same + 1 :]
        at = self.path[-1]
        for op in ops[same:]:
            key = (op.kind, id(op.task), op.node)
            nxt = at.children.get(key)
            if nxt is None:
                nxt = at.children[key] = _State()
            at = nxt
            seen.append(op)
            self.path.append(at)
        return at

    def _nodes_key(self, nodes: np.ndarray) -> bytes:
        got = self.arrays.get(id(nodes))
        if got is not None and got[0] is nodes:
            return got[1]
        raw = nodes.tobytes()
        key = self.interned.setdefault(raw, raw)
        self.arrays[id(nodes)] = (nodes, key)  # holds the array: its id is not reused meanwhile
        return key

    def node_sets(self, stmt: Statement, job: str, subgroup: Hashable, nodes: np.ndarray,
                  work: Callable[[], T]) -> T:  # fmt: skip
        """The node sets a job's set or pod set (``subgroup``: its name and the tasks it
        places) is tried on, from ``nodes``, in this state: what ``work`` gives (it reads
        that state, the job and the nodes, nothing else)."""
        state = self._state(stmt)
        key = (job, subgroup, self._nodes_key(nodes))
        got = state.sets.get(key)
        if got is None:
            got = state.sets[key] = work()
        return got

    def get(self, stmt: Statement, task: Task, nodes: np.ndarray) -> tuple[_State, tuple[int, bytes], bool, int | None]:
        """(state, key, found, answer)."""
        state = self._state(stmt)
        key = (id(task), self._nodes_key(nodes))
        if key in state.answers:
            self.hits += 1
            return state, key, True, state.answers[key]
        self.misses += 1
        return state, key, False, None

    def known_run(self, stmt: Statement, tasks: Sequence[Task], nodes: np.ndarray) -> tuple[list[int], list[_State]]:
        """The nodes of the leading ``tasks`` whose best node is known in the state each is
        asked in (the state after the ones before it are pipelined there), stopping at the
        first unknown answer, a task with no node, or one that would go back to the node
        it was evicted from (an un-evict, not a plain pipeline); and the state after each.
        The caller pipelines them (:meth:`pushed`)."""
        state = self._state(stmt)
        nkey = self._nodes_key(nodes)
        out: list[int] = []
        states: list[_State] = []
        for t in tasks:
            node = state.answers.get((id(t), nkey), -1)
            if node is None or node < 0 or (t.status is TaskStatus.RELEASING and t.node == node):
                break
            key = (PIPELINE, id(t), node)
            nxt = state.children.get(key)
            if nxt is None:
                nxt = state.children[key] = _State()
            out.append(node)
            states.append(nxt)
            state = nxt
        self.hits += len(out)
        return out, states

    def pushed(self, stmt: Statement, states: list[_State]) -> None:
        """``stmt`` has just pushed one operation per state of :meth:`known_run`."""
        k = len(states)
        if k:
            self.ops.extend(stmt.ops[-k:])
            self.path.extend(states)
