"""KAI's queue order and its queue tree of jobs (``JobsOrderByQueues``).

``queue_order`` is the proportion plugin's ``GetQueueOrderResult``
(``plugins/proportion/queue_order/queue_order.go``): the first decisive rule wins —

1. not over its fair share before over it (over = fair share < allocated in *every*
   resource);
2. within its deserved quota with the job's request before not (``LessEqual``, -1 =
   unlimited);
3. higher queue priority;
4. a queue that would use a resource whose allocatable share is 0 goes last;
5. smaller dominant resource share with the job's request added and its victims'
   allocation taken away (victim mode);
6. smaller dominant resource share as it stands;
7. smaller allocatable share (less in one resource and not more in any);
8. older queue (equal times: the right-hand queue first, as KAI).

``JobsOrderByQueues`` (``actions/utils/job_order_by_queue.go``) keeps one heap per queue
node: leaves hold jobs (JobOrder, inverted for victims), inner nodes and the roots hold
child queues compared by their best job's queue order (inverted for victims, where the
comparison sees the jobs already popped from the leaf plus its next one). After a pop the
popped path is marked; a marked heap top is re-sifted (``heap.Fix(0)``) before it is
used, so queue fairness is re-evaluated after every pop with the queues' allocation as
it is then. The heaps follow Go's ``container/heap`` (push sifts up, pop swaps the last
element to the top and sifts down, fix sifts down or up), so ties and stale siblings
resolve as in KAI. Jobs are inserted in (creation time, UID) order (KAI inserts in Go
map order).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from app.kai.jobs import View, elastic_state, job_less, tasks_to_allocate
from app.model.cluster import TaskStatus

NO_FAIR_SHARE_DRF_MULTIPLIER = 1000.0
UNLIMITED = -1.0


# -- resource vectors (GPU, CPU, memory) as KAI compares them ------------------------------
def less_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """``LessEqual`` with -1 meaning unlimited on either side."""
    for x, y in zip(a.tolist(), b.tolist()):
        if x == UNLIMITED:
            if y != UNLIMITED:
                return False
            continue
        if y == UNLIMITED:
            continue
        if x > y:
            return False
    return True


def less(a: np.ndarray, b: np.ndarray) -> bool:
    """``Less``: strictly smaller in every resource (plain numbers)."""
    return bool((a < b).all())


def less_in_one(a: np.ndarray, b: np.ndarray) -> bool:
    return not less_equal(b, a)


def allocatable_share(q: Any) -> np.ndarray:
    """``GetAllocatableShare`` per resource: the limit when the quota is unlimited, else
    max(quota, fair share) capped by the limit."""
    out = np.maximum(q.deserved, q.fair)
    out = np.where(q.limit != UNLIMITED, np.minimum(q.limit, out), out)
    return np.where(q.deserved == UNLIMITED, q.limit, out)


def dominant_share(q: Any, allocated: np.ndarray, total: np.ndarray) -> float:
    """``GetDominantResourceShare`` of ``allocated`` against the queue's allocatable share."""
    share = allocatable_share(q)
    share = np.where(share == UNLIMITED, total, share)
    best = 0.0
    for a, s in zip(allocated.tolist(), share.tolist()):
        v = a * NO_FAIR_SHARE_DRF_MULTIPLIER if s == 0 else a / s
        best = max(best, v)
    return best


class QueueOrder:
    """The proportion plugin's queue order over its queue attributes (``fs`` is the
    ``KaiFairShare`` plugin: ``queues``, ``capacity``, ``vec``)."""

    def __init__(self, fs: Any, virtual: set[int] | frozenset[int] = frozenset()) -> None:
        self.fs = fs
        self.virtual = virtual
        self.requests: dict[int, tuple[View, np.ndarray]] | None = None  # see frozen()
        #: job key -> (its version, the request of the job's whole view): kept while none of
        #: the job's tasks changes state (a job with a Releasing task is asked again: whether a
        #: statement evicted it, ``virtual``, changes without one)
        self.kept: dict[str, tuple[int, np.ndarray]] = {}

    def job_request(self, v: View | None) -> np.ndarray:
        """``GetTasksToAllocateInitResource`` in queue units."""
        if v is None:
            return np.zeros(3)
        memo = self.requests
        if memo is not None:
            got = memo.get(id(v))
            if got is not None and got[0] is v:
                return got[1]
        job = v.job
        keep = v.whole and not job.counts[TaskStatus.RELEASING]
        kept = self.kept.get(job.key) if keep else None
        if kept is not None and kept[0] == job.version:
            req = kept[1]
        else:
            req = self.fs.vec_sum(tasks_to_allocate(v, False, self.virtual), "pending")
            if keep:
                self.kept[job.key] = (job.version, req)
        if memo is not None:
            memo[id(v)] = (v, req)
        return req

    @contextlib.contextmanager
    def frozen(self) -> Iterator[None]:
        """While no task changes state: each view's request worked out once (inside an
        outer ``frozen``, that one's requests are kept)."""
        if self.requests is not None:
            yield
            return
        self.requests = {}
        try:
            yield
        finally:
            self.requests = None

    def seed(self, v: View, request: np.ndarray) -> None:
        """Inside :meth:`frozen`: ``v``'s request, as :meth:`job_request` would work it out,
        given by a caller that has it."""
        assert self.requests is not None
        self.requests[id(v)] = (v, request)

    def allocated_of(self, v: View) -> np.ndarray:
        """A victim job's allocated share (``PodGroupInfo.Allocated``: its pods' requests, so
        a gpu-memory pod's GPUs count 0; MIG instances as their GPUs)."""
        return self.fs.vec_sum(v.allocated(), "none")

    def less(self, lname: str, rname: str, lj: View | None, rj: View | None,
             lv: list[View], rv: list[View]) -> bool:  # fmt: skip
        lq, rq = self.fs.queues[lname], self.fs.queues[rname]
        # 1. under-utilised first
        lo, ro = less(lq.fair, lq.allocated), less(rq.fair, rq.allocated)
        if lo != ro:
            return ro
        lreq, rreq = self.job_request(lj), self.job_request(rj)
        # 2. starved (within deserved with the job) first
        ls, rs = less_equal(lq.allocated + lreq, lq.deserved), less_equal(rq.allocated + rreq, rq.deserved)
        if ls != rs:
            return ls
        # 3. queue priority
        if lq.priority != rq.priority:
            return lq.priority > rq.priority
        # 4. zero allocatable share while using the resource
        lz = bool(((allocatable_share(lq) == 0) & (lq.allocated + lreq > 0)).any())
        rz = bool(((allocatable_share(rq) == 0) & (rq.allocated + rreq > 0)).any())
        if lz != rz:
            return rz
        total = self.fs.capacity
        # 5. dominant share with the job (victims' allocation taken away)
        la = lq.allocated + lreq - sum((self.allocated_of(v) for v in lv), np.zeros(3))
        ra = rq.allocated + rreq - sum((self.allocated_of(v) for v in rv), np.zeros(3))
        ld, rd = dominant_share(lq, la, total), dominant_share(rq, ra, total)
        if ld != rd:
            return ld < rd
        # 6. dominant share as it stands
        ld, rd = dominant_share(lq, lq.allocated, total), dominant_share(rq, rq.allocated, total)
        if ld != rd:
            return ld < rd
        # 7. smaller allocatable share
        lsh, rsh = allocatable_share(lq), allocatable_share(rq)
        if less_in_one(lsh, rsh) and less_equal(lsh, rsh):
            return True
        if less_in_one(rsh, lsh) and less_equal(rsh, lsh):
            return False
        # 8. older queue; equal times: the right-hand one
        return lq.created < rq.created


# -- Go's container/heap ------------------------------------------------------------------
class Heap:
    """A binary heap with Go's ``container/heap`` algorithms (``less`` may change between
    calls: stale entries stay where they are until fixed)."""

    __slots__ = ("items", "less")

    def __init__(self, less_fn: Callable[[Any, Any], bool]) -> None:
        self.items: list[Any] = []
        self.less = less_fn

    def __len__(self) -> int:
        return len(self.items)

    def _up(self, j: int) -> None:
        h, less_fn = self.items, self.less
        while True:
            i = (j - 1) // 2
            if i == j or j <= 0 or not less_fn(h[j], h[i]):
                break
            h[i], h[j] = h[j], h[i]
            j = i

    def _down(self, i0: int, n: int) -> bool:
        h, less_fn = self.items, self.less
        i = i0
        while True:
            j1 = 2 * i + 1
            if j1 >= n or j1 < 0:
                break
            j = j1
            j2 = j1 + 1
            if j2 < n and less_fn(h[j2], h[j1]):
                j = j2
            if not less_fn(h[j], h[i]):
                break
            h[i], h[j] = h[j], h[i]
            i = j
        return i > i0

    def push(self, x: Any) -> None:
        self.items.append(x)
        self._up(len(self.items) - 1)

    def pop(self) -> Any:
        n = len(self.items) - 1
        self.items[0], self.items[n] = self.items[n], self.items[0]
        self._down(0, n)
        return self.items.pop()

    def peek(self) -> Any:
        return self.items[0]

    def fix(self, i: int) -> None:
        if not self._down(i, len(self.items)):
            self._up(i)

    def remove(self, i: int) -> Any:
        """``heap.Remove``: the element at position ``i`` of the heap's array."""
        n = len(self.items) - 1
        if n != i:
            self.items[i], self.items[n] = self.items[n], self.items[i]
            if not self._down(i, n):
                self._up(i)
        return self.items.pop()


class _Node:
    __slots__ = ("queue", "children", "needs_reorder", "parent", "leaf")

    def __init__(self, queue: str, children: Heap, leaf: bool) -> None:
        self.queue = queue
        self.children = children
        self.needs_reorder = False
        self.parent: _Node | None = None
        self.leaf = leaf


def admitted(queue: str, parents: dict[str, str], leaves: set[str]) -> bool:
    """Whether a job of ``queue`` enters the queue tree: a known leaf queue whose parent
    (if any) is known."""
    parent = parents.get(queue)
    return parent is not None and (not parent or parent in parents) and queue in leaves


class JobsOrderByQueues:
    """KAI's queue tree of jobs; ``victim=True`` gives the victim order (worst first)."""

    def __init__(self, qorder: QueueOrder, parents: dict[str, str], leaves: set[str], *, victim: bool = False,
                 depth: int = -1) -> None:  # fmt: skip
        self.qorder = qorder
        #: ``MaxJobsQueueDepth`` (-1: none): a leaf queue holds at most this many jobs; a push
        #: past it drops the job at that position of the heap's array, as KAI's
        #: ``PriorityQueue.Push`` does (not always the worst: the heap's layout decides)
        self.depth = depth
        self.parents = parents  # queue -> parent ("" at the top); only known queues
        self.leaves = leaves
        self.victim = victim
        self.roots: Heap | None = None
        self.nodes: dict[str, _Node] = {}
        self.popped: dict[str, list[View]] = {}
        self._state: Callable[[View], int] = elastic_state

    def initialize(self, views: Iterable[View]) -> None:
        memo: dict[int, int] = {}  # no task changes state while the queue fills: each view's elastic state once

        def state(v: View) -> int:
            hit = memo.get(id(v))
            if hit is None:
                hit = memo[id(v)] = elastic_state(v)
            return hit

        self._state = state
        try:
            for v in sorted(views, key=lambda v: (v.job.created, v.job.uid or v.key, v.key)):
                if admitted(v.job.queue, self.parents, self.leaves):
                    self.push(v)
        finally:
            self._state = elastic_state

    def empty(self) -> bool:
        return self.roots is None or not len(self.roots)

    def __len__(self) -> int:
        return sum(len(n.children) for n in self.nodes.values() if n.leaf)

    # -- comparators ----------------------------------------------------------------------
    def _job_less(self, a: View, b: View) -> bool:
        return not job_less(a, b, self._state) if self.victim else job_less(a, b, self._state)

    def _node_less(self, a: _Node, b: _Node) -> bool:
        if not len(a.children):
            return not self.victim
        if not len(b.children):
            return self.victim
        lj, lv = self._best(a)
        rj, rv = self._best(b)
        res = self.qorder.less(a.queue, b.queue, lj, rj, lv, rv)
        return not res if self.victim else res

    def _best(self, node: _Node) -> tuple[View | None, list[View]]:
        while not node.leaf:
            node = node.children.peek()
        if not len(node.children):
            return None, []
        if self.victim:
            return None, [*self.popped.get(node.queue, []), node.children.peek()]
        return node.children.peek(), []

    # -- operations -----------------------------------------------------------------------
    def push(self, v: View) -> None:
        q = v.job.queue
        leaf = self.nodes.get(q)
        new = leaf is None
        if leaf is None:
            leaf = self.nodes[q] = _Node(q, Heap(self._job_less), True)
        leaf.children.push(v)
        if self.depth >= 0 and len(leaf.children) > self.depth:
            leaf.children.remove(self.depth)
        if new:
            self._link(leaf)
        self._mark(leaf)

    def _link(self, child: _Node) -> None:
        parent_name = self.parents.get(child.queue, "")
        if not parent_name:
            if child.parent is None:
                if self.roots is None:
                    self.roots = Heap(self._node_less)
                self.roots.push(child)
            return
        parent = self.nodes.get(parent_name)
        new = parent is None
        if parent is None:
            parent = self.nodes[parent_name] = _Node(parent_name, Heap(self._node_less), False)
        if child.parent is None:
            child.parent = parent
            parent.children.push(child)
        if new:
            self._link(parent)

    def _mark(self, node: _Node | None) -> None:
        while node is not None:
            node.needs_reorder = True
            node = node.parent

    def _next(self, heap: Heap) -> _Node | None:
        while len(heap):
            node = heap.peek()
            if node.needs_reorder:
                heap.fix(0)
                node.needs_reorder = False
                continue
            return node if len(node.children) else None
        return None

    def pop(self) -> View | None:
        if self.empty():
            return None
        heap = self.roots
        node = self._next(heap)  # type: ignore[arg-type]
        while node is not None and not node.leaf:
            node = self._next(node.children)
        if node is None:
            return None
        v = node.children.pop()
        if self.victim:
            self.popped.setdefault(node.queue, []).append(v)
        self._after_pop(node)
        return v

    def _after_pop(self, node: _Node) -> None:
        if not len(node.children):
            if node.parent is not None:
                node.parent.children.pop()
            else:
                self.roots.pop()  # type: ignore[union-attr]
            self.nodes.pop(node.queue, None)
            if node.parent is not None:
                self._after_pop(node.parent)
            return
        self._mark(node)
