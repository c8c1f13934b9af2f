"""Hierarchical DRF: the ``drf`` plugin with ``enableHierarchy: true`` (Volcano's hDRF,
``plugins/drf/drf.go``).

A Volcano Queue names its place in a tree with two annotations: ``volcano.sh/hierarchy``
(``root/eng/dev``) and ``volcano.sh/hierarchy-weights`` (``1/50/50``), one weight per level.
The tree's inner nodes are those path elements (the first, the root, is not read); each job
of the session hangs below its queue's last element as a leaf.

* **A leaf** holds its job's allocation (Allocated, Binding, Bound, Running and, as pods
  are placed in the session, Pipelined ones) and its DRF share (``max_r allocated_r /
  total_r``). It is *saturated* when, on a resource it holds (>= 0.1), it has all it asked
  for (every pod of the job counted, whatever its state: ``TotalRequest``), or it asks for
  a resource the cluster has no more of (``totalAllocated >= total``: not *demanding*).
* **An inner node** is saturated when every child is. Its allocation scales its non-empty
  children to one level: the least share among its unsaturated non-empty children (``mdr``,
  at most 1) over each such child's share, times the child's allocation; saturated children
  count as they are; its share is the DRF share of that sum.
* **QueueOrder**: walk both queues' paths from the root; at the first level where one node is
  saturated and the other not, the unsaturated first; else where ``share / weight`` differ,
  the smaller first; equal all the way down (or queues without the annotation, whose jobs
  hang from the root): a tie, left to the next plugin.
* **Reclaimable**: the reclaimer's job with the reclaimer's request added; for each
  candidate, its job without it: a victim when the reclaimer's queue then comes first.
  Each candidate is judged on its own (the reclaimer's addition stays, the candidate's
  removal is undone).
* A node's weight is read when the first job below it is added (a weight below 1 is 1);
  queues that give one node different weights are named in the warnings (Volcano keeps
  the first job's, in Go's map order). Annotations Volcano's queue webhook refuses are a
  422 at the annotation.

Allocations in the session update the tree as they happen: the changed leaf's ancestors are
worked out again, and the whole tree when a resource becomes, or stops being, exhausted.
A node sums its children in a fixed order (inner nodes by name, then jobs by key, then its
queues' pods held as columns): Go's map order is random, so Volcano's own last bit can
vary where three or more children are summed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.errors import InputError
from app.framework.plugin import Plugin
from app.ingest.gostrconv import parse_float
from app.ingest.kube import VOLCANO_HIERARCHY as HIERARCHY
from app.ingest.kube import VOLCANO_HIERARCHY_WEIGHTS as HIERARCHY_WEIGHTS
from app.model.cluster import ALLOCATED_STATUS, Queue, Task, TaskStatus

#: Volcano's ``minResource``: a resource below this amount is not listed (``ResourceNames``).
MIN_RESOURCE = 0.1
#: every task state: a job's ``TotalRequest`` counts all its pods
EVERY_STATUS = frozenset(TaskStatus)
#: the most levels a queue's hierarchy may have below the root (Gangplank's bound: the tree
#: is walked level by level; Volcano has none, real hierarchies have a handful)
MAX_DEPTH = 64


class Node:
    """An inner node of the hDRF tree (the root or a path element).

    Its children are rows of its arrays: its allocation ``A``, request ``R`` (jobs only),
    share ``S``, saturation ``SAT``, and whether the row is a job's leaf (``LEAF``); an inner
    child (``kids[i]``, None for a leaf) writes its own figures into its row. Working a node
    out again is then a few array operations, whatever the number of jobs below it."""

    __slots__ = ("name", "parent", "idx", "weight", "children", "kids", "alloc", "share", "saturated",
                 "A", "R", "S", "SAT", "LEAF")  # fmt: skip

    def __init__(self, name: str, parent: Node | None, weight: float, size: int) -> None:
        self.name = name
        self.parent = parent
        self.idx = -1  # its row in the parent's arrays
        self.weight = weight
        self.children: dict[str, Node] = {}  # the inner children by path element
        self.kids: list[Node | None] = []  # per row: the inner child, None for a job
        self.alloc = np.zeros(size)
        self.share = 0.0
        self.saturated = False
        self.A = np.zeros((0, size))
        self.R = np.zeros((0, size))
        self.S = np.zeros(0)
        self.SAT = np.zeros(0, dtype=bool)
        self.LEAF = np.zeros(0, dtype=bool)

    def rows(self, kids: list[Node | None], alloc: np.ndarray, request: np.ndarray) -> int:
        """Rows for ``kids`` (inner nodes, or None for jobs with ``alloc`` and ``request``)
        after the present ones; the first new row."""
        at = len(self.kids)
        for i, k in enumerate(kids):
            if k is not None:
                k.idx = at + i
        self.kids.extend(kids)
        n = len(kids)
        self.A = np.vstack([self.A, alloc])
        self.R = np.vstack([self.R, request])
        self.S = np.concatenate([self.S, np.zeros(n)])
        self.SAT = np.concatenate([self.SAT, np.zeros(n, dtype=bool)])
        self.LEAF = np.concatenate([self.LEAF, np.fromiter((k is None for k in kids), dtype=bool, count=n)])
        return at


class HierarchicalDrf:
    """The tree, its queue order and its reclaim rule (see the module docstring)."""

    def __init__(self, plugin: Plugin, total: np.ndarray) -> None:
        self.plugin = plugin
        ssn = plugin.ssn
        c = ssn.cluster
        self.total = total
        self.listed = total >= MIN_RESOURCE  # ``totalResource.ResourceNames()``
        self._cols = np.flatnonzero(self.listed)
        self._den = total[self._cols]
        size = self.size = len(total)
        self.root = Node("root", None, 1.0, size)
        self.paths: dict[str, list[str]] = {}  # queue -> its path below the root
        self.weights: dict[str, list[float]] = {}  # queue -> the weights of that path
        self.leaves: dict[str, tuple[Node, int]] = {}  # job key -> (its node, its row)
        self._weights_seen: dict[tuple[str, ...], tuple[float, str]] = {}
        for name in sorted(c.queues):  # every queue's annotations, as the webhook checked them
            self._path(c.queues[name])
        # the jobs built as objects, a row each; the pods still held as columns (each Running
        # or Bound, a job of one holding all it asks, the pod slot included: saturated) are
        # summed per queue into one row of the queue's node (``columns``), a row of their own
        # once an event touches one of them (``_leaf``)
        held = c.sum_by("job", ALLOCATED_STATUS)
        asked = c.sum_by("job", EVERY_STATUS)
        zero = np.zeros(size)
        jobs: dict[int, list[tuple[str, np.ndarray, np.ndarray]]] = {}
        at: dict[str, Node] = {}  # queue -> its node
        for job in c.active_jobs.values():  # (key order)
            if job.queue not in c.queues or ssn.not_ours(job):
                continue
            node = at.get(job.queue)
            if node is None:
                node = at[job.queue] = self._queue_node(c.queues[job.queue])
            h, r = held.get(job.key), asked.get(job.key)  # (a PodGroup without pods is a job holding nothing)
            jobs.setdefault(id(node), []).append((job.key, zero if h is None else h, zero if r is None else r))
        self.inert = c.inert
        self.columns: dict[str, tuple[Node, int]] = {}  # queue -> the row summing its pods held as columns
        sums: dict[int, list[tuple[str, np.ndarray]]] = {}
        if self.inert is not None:
            theirs = ssn.not_ours_inert()
            mask = np.ones(len(self.inert), dtype=bool) if theirs is None else ~theirs
            totals = self.inert.queue_totals_of(mask, c.task_req)
            for q, row in zip(self.inert.queue_ordinals()[1], totals, strict=True):
                if row.any() and q in c.queues:
                    node = self._queue_node(c.queues[q])
                    sums.setdefault(id(node), []).append((q, row))
        self._rows(self.root, jobs, sums)
        self.total_allocated = self._allocated(self.root)
        self.demanding = self._demanding()
        self._refresh_all()

    def _queue_node(self, q: Queue) -> Node:
        """The node the queue's jobs hang from (made with its path, ``buildHierarchy``)."""
        path, weights = self._path(q)
        node = self.root
        for i, name in enumerate(path):
            child = node.children.get(name)
            at = tuple(path[: i + 1])
            if child is None:
                child = node.children[name] = Node(name, node, weights[i], self.size)
                self._weights_seen[at] = (weights[i], q.name)
            elif not _same(self._weights_seen[at][0], weights[i]):
                first, by = self._weights_seen[at]
                self.plugin.warn(f"plugin drf (hierarchy): queues {by!r} and {q.name!r} give {'/'.join(('root',) + at)} "
                                 f"different weights ({first:g} and {weights[i]:g}): the first is used (Volcano keeps "
                                 "the weight of the first job it adds below it, in Go's map order)")  # fmt: skip
            node = child
        return node

    def _rows(self, node: Node, jobs: dict, sums: dict) -> None:
        """Each node's rows: inner children by name, then its jobs by key, then the sums of
        its queues' pods held as columns."""
        inner = [node.children[k] for k in sorted(node.children)]
        own = jobs.get(id(node), [])
        cols = sums.get(id(node), [])
        kids: list[Node | None] = [*inner, *([None] * (len(own) + len(cols)))]
        size = self.size
        alloc = np.zeros((len(kids), size))
        request = np.zeros((len(kids), size))
        for i, (_, h, r) in enumerate(own, start=len(inner)):
            alloc[i], request[i] = h, r
        for i, (_, row) in enumerate(cols, start=len(inner) + len(own)):
            alloc[i] = request[i] = row
        at = node.rows(kids, alloc, request)
        for i, (key, _, _) in enumerate(own, start=at + len(inner)):
            self.leaves[key] = (node, i)
        for i, (q, _) in enumerate(cols, start=at + len(inner) + len(own)):
            self.columns[q] = (node, i)
        for child in inner:
            self._rows(child, jobs, sums)

    def _allocated(self, node: Node) -> np.ndarray:
        """Σ of every job's allocation below ``node`` (``totalAllocated``)."""
        out = node.A[node.LEAF].sum(axis=0) if node.LEAF.any() else np.zeros(self.size)
        for k in node.kids:
            if k is not None:
                out = out + self._allocated(k)
        return out

    # -- reading the queues ----------------------------------------------------------------
    def _path(self, q: Queue) -> tuple[list[str], list[float]]:
        """The queue's path below the root and each element's weight (``buildHierarchy``),
        checked as Volcano's queue webhook checks the annotations (``validateHierarchicalAttributes``)."""
        got = self.paths.get(q.name)
        if got is not None:
            return got, self.weights[q.name]
        hierarchy, weights = q.hierarchy, q.hierarchy_weights
        parts, ws = hierarchy.split("/"), weights.split("/")
        values: list[float] = []
        if len(parts) - 1 > MAX_DEPTH:
            raise InputError(f"queue {q.name}: {HIERARCHY} has {len(parts) - 1} levels below the root, more than the "
                             f"{MAX_DEPTH} Gangplank reads", _annotation(q, HIERARCHY))  # fmt: skip
        if hierarchy or weights:
            if len(parts) != len(ws):
                raise InputError(f"queue {q.name}: {HIERARCHY} {hierarchy!r} and {HIERARCHY_WEIGHTS} {weights!r} must "
                                 "have the same number of elements (Volcano's queue webhook refuses it; its scheduler "
                                 "would panic)", _annotation(q, HIERARCHY))  # fmt: skip
            for i, w in enumerate(ws):
                v = parse_float(w)
                if v is None or v <= 0:  # (NaN passes, as in Go)
                    raise InputError(f"queue {q.name}: {HIERARCHY_WEIGHTS} {weights!r}: {w!r} is not a number above 0 "
                                     "(Volcano's queue webhook refuses it)", _annotation(q, HIERARCHY_WEIGHTS))  # fmt: skip
                if i:
                    values.append(1.0 if v < 1 else v)  # (buildHierarchy: a weight below 1 is 1)
        path = parts[1:]
        self.paths[q.name], self.weights[q.name] = path, values
        return path, values

    # -- shares ----------------------------------------------------------------------------
    def share_of(self, alloc: np.ndarray) -> float:
        """``calculateShare``: the largest ``allocated_r / total_r`` over the cluster's listed
        resources (0 when none)."""
        if not len(self._cols):
            return 0.0
        return max(0.0, float((alloc[self._cols] / self._den).max()))

    def _shares(self, alloc: np.ndarray) -> np.ndarray:
        """:meth:`share_of` of each row."""
        if not len(self._cols) or not len(alloc):
            return np.zeros(len(alloc))
        return np.maximum((alloc[:, self._cols] / self._den).max(axis=1), 0.0)

    def _demanding(self) -> np.ndarray:
        return self.listed & (self.total_allocated < self.total)

    def _saturated(self, alloc: np.ndarray, request: np.ndarray) -> np.ndarray:
        """``resourceSaturated`` of each row: on a resource the job holds (>= 0.1), it has
        all it asked for, or it asks for one the cluster has no more of."""
        held = (alloc >= MIN_RESOURCE) & (request != 0)
        return (held & ((alloc >= request) | ~self.demanding)).any(axis=1)

    def _jobs(self, node: Node, rows: np.ndarray | slice) -> None:
        """The shares and saturation of job rows ``rows`` of ``node``."""
        node.S[rows] = self._shares(node.A[rows])
        node.SAT[rows] = self._saturated(node.A[rows], node.R[rows])

    def _refresh(self, node: Node) -> None:
        """``updateHierarchicalShare`` of one inner node, its rows being up to date; then its
        own row in its parent's arrays."""
        S, SAT = node.S, node.SAT
        some = S != 0  # (only non-empty children count)
        free = some & ~SAT
        mdr = min(1.0, float(S[free].min())) if free.any() else 1.0
        scale = np.ones(len(S))
        scale[free] = mdr / S[free]
        node.alloc = np.add.reduce(node.A[some] * scale[some, None], axis=0) if some.any() else np.zeros(self.size)
        node.share = self.share_of(node.alloc)
        node.saturated = bool(SAT.all())
        p = node.parent
        if p is not None:
            p.A[node.idx], p.S[node.idx], p.SAT[node.idx] = node.alloc, node.share, node.saturated

    def _refresh_all(self, node: Node | None = None) -> None:
        node = self.root if node is None else node
        for k in node.kids:
            if k is not None:
                self._refresh_all(k)
        self._jobs(node, node.LEAF)
        self._refresh(node)

    def _changed(self, *rows: tuple[Node, int]) -> None:
        """After jobs' allocations (and the total) changed: the tree worked out again (the
        paths above those jobs; every node when the exhausted resources change). Every node
        is worked out from its rows, so the state is the one the changes one by one leave."""
        demanding = self._demanding()
        if not np.array_equal(demanding, self.demanding):
            self.demanding = demanding
            self._refresh_all()
            return
        for node, row in rows:
            self._jobs(node, slice(row, row + 1))
            self._refresh_up(node)

    def _refresh_up(self, node: Node | None) -> None:
        """``node`` and its ancestors worked out again, in that order."""
        while node is not None:
            self._refresh(node)
            node = node.parent

    def _leaf(self, task: Task) -> tuple[Node, int] | None:
        """The row of the task's job; a pod held as a column at open (a job of one) is taken
        out of its queue's sum into a row of its own, as it was before this event."""
        job = task.job
        if job is None:
            return None
        got = self.leaves.get(job.key)
        if got is not None or self.inert is None or self.inert.position(job.key) is None or self.plugin.ssn.not_ours(job):
            return got
        col = self.columns.get(job.queue)
        if col is None:
            return None  # (not the scheduler's: never in the tree)
        node, at = col
        req = task.req.astype(np.float64)
        row = node.rows([None], req[None, :], req[None, :])
        self.leaves[job.key] = (node, row)
        node.A[at] = node.A[at] - req
        node.R[at] = node.A[at]
        self._jobs(node, np.array([at, row]))
        self._refresh_up(node)
        return node, row

    def _move(self, where: tuple[Node, int], req: np.ndarray) -> None:
        node, row = where
        node.A[row] = node.A[row] + req
        self.total_allocated = self.total_allocated + req
        self._changed(where)

    def add(self, task: Task, sign: int) -> None:
        """The AllocateFunc / DeallocateFunc handlers."""
        where = self._leaf(task)
        if where is not None:
            self._move(where, task.req if sign > 0 else -task.req)

    def add_many(self, tasks: Sequence[Task], sign: int) -> None:
        """``add`` of each task, the tree worked out once: one sum per job (whole numbers:
        the same rows as task by task)."""
        moved: dict[tuple[int, int], tuple[tuple[Node, int], np.ndarray]] = {}
        for t in tasks:
            where = self._leaf(t)
            if where is not None:
                k = (id(where[0]), where[1])
                hit = moved.get(k)
                moved[k] = (where, t.req if hit is None else hit[1] + t.req)  # type: ignore[assignment]
        if not moved:
            return
        for (node, row), req in moved.values():
            node.A[row] = node.A[row] + sign * req
            self.total_allocated = self.total_allocated + sign * req
        self._changed(*(where for where, _ in moved.values()))

    # -- queue order -----------------------------------------------------------------------
    def queue_order(self, a: Queue, b: Queue) -> int:
        """``compareQueues``: the first level where the two paths differ in saturation or in
        ``share / weight`` decides."""
        lp = [""] + self._path(a)[0]
        rp = [""] + self._path(b)[0]
        ln: Node | None = self.root
        rn: Node | None = self.root
        depth = min(len(lp), len(rp))
        for i in range(depth):
            if ln is None or rn is None:
                return 0  # (a queue no job hangs below: not in the tree; Volcano never compares one)
            if not ln.saturated and rn.saturated:
                return -1
            if ln.saturated and not rn.saturated:
                return 1
            ls, rs = ln.share / ln.weight, rn.share / rn.weight
            if ls != rs:  # (a NaN weight: NaN differs from everything, and the difference is no order)
                d = ls - rs
                return -1 if d < 0 else (1 if d > 0 else 0)
            if i < depth - 1:
                ln, rn = ln.children.get(lp[i + 1]), rn.children.get(rp[i + 1])
        return 0

    # -- reclaim ---------------------------------------------------------------------------
    def reclaimable(self, reclaimer: Task | None, candidates: Sequence[Task]) -> list[Task] | None:
        """``reclaimFn``: the candidates whose removal leaves the reclaimer's queue first.
        The tree is changed and changed back (Volcano clones it): each job's row is restored
        as it was, and the nodes worked out again from the same rows are the same."""
        c = self.plugin.ssn.cluster
        if reclaimer is None or reclaimer.job is None:
            return None
        mine = self._leaf(reclaimer)
        lq = c.queues.get(reclaimer.job.queue)
        if mine is None or lq is None:
            return None
        saved = mine[0].A[mine[1]].copy(), self.total_allocated
        self._move(mine, reclaimer.req)
        victims: list[Task] = []
        try:
            for t in candidates:
                where = self._leaf(t)
                rq = c.queues.get(t.job.queue) if t.job is not None else None
                if where is None or rq is None:
                    continue
                before = where[0].A[where[1]].copy(), self.total_allocated
                self._move(where, -t.req)
                ret = self.queue_order(lq, rq)
                where[0].A[where[1]], self.total_allocated = before
                self._changed(where)
                if ret < 0:
                    victims.append(t)
        finally:
            mine[0].A[mine[1]], self.total_allocated = saved
            self._changed(mine)
        return victims


def _annotation(q: Queue, key: str) -> str:
    return f"{q.pointer}/metadata/annotations/{key.replace('~', '~0').replace('/', '~1')}"


def _same(a: float, b: float) -> bool:
    return a == b or (a != a and b != b)  # (two NaN weights are the same text's)
