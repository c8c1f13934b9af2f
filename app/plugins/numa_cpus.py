"""The CPU manager hint provider of Volcano's ``numa-aware`` plugin
(``pkg/scheduler/plugins/numaaware/provider/cpumanager``), on CPU sets held as int bit sets.

* :func:`cpu_hints` (``GetTopologyHints``): for a container asking for a whole number of
  CPUs, a hint per set of NUMA nodes whose available CPUs (the node's free set less its
  reserved CPUs) hold the request; preferred when the set is as small as any set whose CPUs
  (free or not) could hold it. None (no preference) for a container with no cpu request,
  a fraction of a CPU, or a node with no ``cpu`` in ``numares``.
* :func:`cpu_allocate` (``Allocate``): the CPUs of the best hint's NUMA nodes first, by
  :func:`take_by_topology`, then the rest anywhere; an empty set when either cannot be had.
* :func:`take_by_topology` (``takeByTopology``): whole sockets, then whole cores, then
  single CPUs, with Volcano's copy of an old kubelet's code as it is: its "free sockets"
  are the socket ids that are also ids of available CPUs, its "free cores" the core ids of
  a socket that are also CPU ids, cores are told apart by core id alone across sockets, a
  socket is taken whole even where that is more CPUs than asked, and its two sorts use
  comparisons that are not orders, so the order :func:`go_sort_slice` (Go's ``sort.Slice``,
  pdqsort) leaves is the answer. Where Volcano starts a sort from Go map order (the sockets
  of ``freeCores``), ascending ids are taken.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations

from app.model.numa import bits

MASK64 = (1 << 64) - 1


# -- Go's sort.Slice (sort/zsortfunc.go, current Go's pdqsort) -----------------------------------------
def go_sort_slice(items: list, less: Callable[[object, object], bool]) -> None:
    """Sort ``items`` in place exactly as Go's ``sort.Slice(items, less)`` does, ``less``
    comparing the two elements (whatever order it describes, or fails to). This is current
    Go's pdqsort (Go 1.21 on, as Volcano builds with): Go 1.19 and 1.20 shuffled with other
    xorshift constants (13, 17, 5), so their orders differ where patterns are broken."""

    def lt(i: int, j: int) -> bool:
        return less(items[i], items[j])

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    n = len(items)
    _pdqsort(lt, swap, 0, n, n.bit_length())


_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2


def _insertion_sort(lt: Callable, swap: Callable, a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and lt(j, j - 1):
            swap(j, j - 1)
            j -= 1


def _sift_down(lt: Callable, swap: Callable, lo: int, hi: int, first: int) -> None:
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and lt(first + child, first + child + 1):
            child += 1
        if not lt(first + root, first + child):
            return
        swap(first + root, first + child)
        root = child


def _heap_sort(lt: Callable, swap: Callable, a: int, b: int) -> None:
    first, hi = a, b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(lt, swap, i, hi, first)
    for i in range(hi - 1, -1, -1):
        swap(first, first + i)
        _sift_down(lt, swap, 0, i, first)


def _pdqsort(lt: Callable, swap: Callable, a: int, b: int, limit: int) -> None:
    balanced = partitioned = True
    while True:
        length = b - a
        if length <= 12:
            _insertion_sort(lt, swap, a, b)
            return
        if limit == 0:
            _heap_sort(lt, swap, a, b)
            return
        if not balanced:
            _break_patterns(swap, a, b)
            limit -= 1
        pivot, hint = _choose_pivot(lt, a, b)
        if hint == _DECREASING:
            _reverse_range(swap, a, b)
            pivot = (b - 1) - (pivot - a)
            hint = _INCREASING
        if balanced and partitioned and hint == _INCREASING and _partial_insertion_sort(lt, swap, a, b):
            return
        if a > 0 and not lt(a - 1, pivot):
            a = _partition_equal(lt, swap, a, b, pivot)
            continue
        mid, partitioned = _partition(lt, swap, a, b, pivot)
        left, right = mid - a, b - mid
        threshold = length // 8
        if left < right:
            balanced = left >= threshold
            _pdqsort(lt, swap, a, mid, limit)
            a = mid + 1
        else:
            balanced = right >= threshold
            _pdqsort(lt, swap, mid + 1, b, limit)
            b = mid


def _partition(lt: Callable, swap: Callable, a: int, b: int, pivot: int) -> tuple[int, bool]:
    swap(a, pivot)
    i, j = a + 1, b - 1
    while i <= j and lt(i, a):
        i += 1
    while i <= j and not lt(j, a):
        j -= 1
    if i > j:
        swap(j, a)
        return j, True
    swap(i, j)
    i, j = i + 1, j - 1
    while True:
        while i <= j and lt(i, a):
            i += 1
        while i <= j and not lt(j, a):
            j -= 1
        if i > j:
            break
        swap(i, j)
        i, j = i + 1, j - 1
    swap(j, a)
    return j, False


def _partition_equal(lt: Callable, swap: Callable, a: int, b: int, pivot: int) -> int:
    swap(a, pivot)
    i, j = a + 1, b - 1
    while True:
        while i <= j and not lt(a, i):
            i += 1
        while i <= j and lt(a, j):
            j -= 1
        if i > j:
            return i
        swap(i, j)
        i, j = i + 1, j - 1


def _partial_insertion_sort(lt: Callable, swap: Callable, a: int, b: int) -> bool:
    i = a + 1
    for _ in range(5):  # maxSteps
        while i < b and not lt(i, i - 1):
            i += 1
        if i == b:
            return True
        if b - a < 50:  # shortestShifting
            return False
        swap(i, i - 1)
        if i - a >= 2:
            j = i - 1
            while j >= 1 and lt(j, j - 1):  # (Go's bound is 1, not a)
                swap(j, j - 1)
                j -= 1
        if b - i >= 2:
            j = i + 1
            while j < b and lt(j, j - 1):
                swap(j, j - 1)
                j += 1
    return False


def _break_patterns(swap: Callable, a: int, b: int) -> None:
    length = b - a
    if length >= 8:
        random = length  # xorshift seeded with the length
        modulus = 1 << length.bit_length()  # nextPowerOfTwo
        for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
            random ^= (random << 13) & MASK64
            random ^= random >> 7
            random ^= (random << 17) & MASK64
            other = random & (modulus - 1)
            if other >= length:
                other -= length
            swap(idx, a + other)


def _choose_pivot(lt: Callable, a: int, b: int) -> tuple[int, int]:
    n = b - a
    swaps = [0]
    i, j, k = a + n // 4, a + n // 4 * 2, a + n // 4 * 3

    def order2(x: int, y: int) -> tuple[int, int]:
        if lt(y, x):
            swaps[0] += 1
            return y, x
        return x, y

    def median(x: int, y: int, z: int) -> int:
        x, y = order2(x, y)
        y, z = order2(y, z)
        x, y = order2(x, y)
        return y

    if n >= 8:
        if n >= 50:  # shortestNinther: Tukey's ninther
            i, j, k = median(i - 1, i, i + 1), median(j - 1, j, j + 1), median(k - 1, k, k + 1)
        j = median(i, j, k)
    if swaps[0] == 0:
        return j, _INCREASING
    if swaps[0] == 12:  # maxSwaps
        return j, _DECREASING
    return j, _UNKNOWN


def _reverse_range(swap: Callable, a: int, b: int) -> None:
    i, j = a, b - 1
    while i < j:
        swap(i, j)
        i, j = i + 1, j - 1


# -- a node's CPU topology (topology.CPUTopology / CPUDetails) -------------------------------------
class CpuTopology:
    """A ``Numatopology``'s ``cpuDetail`` with the sets Volcano's CPU manager asks for, and
    its reserved CPUs (``ResReserved[cpu]``, rounded up to whole CPUs, taken by topology
    from all CPUs; none when that cannot be had)."""

    def __init__(self, detail: dict[int, tuple[int, int, int]], reserved_milli: int | None) -> None:
        self.detail = detail
        self.all = 0
        self.in_numa: dict[int, int] = {}
        self.in_socket: dict[int, int] = {}
        self.in_core: dict[int, int] = {}  # by core id alone, whatever the socket (CPUsInCores)
        for cpu, (numa, socket, core) in detail.items():
            bit = 1 << cpu
            self.all |= bit
            self.in_numa[numa] = self.in_numa.get(numa, 0) | bit
            self.in_socket[socket] = self.in_socket.get(socket, 0) | bit
            self.in_core[core] = self.in_core.get(core, 0) | bit
        self.numa_nodes = sorted(self.in_numa)
        n_cpus, n_sockets = len(detail), len(self.in_socket)
        n_cores = len({(s, c) for _, s, c in detail.values()})  # getPhysicalCoresNum
        self.cpus_per_socket = n_cpus // n_sockets if n_sockets else 0
        self.cpus_per_core = n_cpus // n_cores if n_cores else 0
        self._sums: list[int] | None = None
        self.reserved = 0
        if reserved_milli is not None:
            self.reserved = take_by_topology(self, self.all, -(-reserved_milli // 1000))[0]

    def masks(self) -> list[tuple[int, int, list[int]]]:
        """``IterateBitMasks`` over the NUMA nodes: (mask, CPUs in it, its nodes), by size
        then in lexicographic order (for tests; the hints read :func:`subset_table`)."""
        nodes, sums = self.numa_nodes, self._cpu_sums()
        return [(mask, sums[im], [nodes[i] for i in range(len(nodes)) if im >> i & 1]) for mask, im, _ in subset_table(tuple(nodes))]

    def _cpu_sums(self) -> list[int]:
        """The CPUs (free or not) of each subset of the NUMA nodes, by index mask."""
        if self._sums is None:
            self._sums = subset_sums([self.in_numa[n].bit_count() for n in self.numa_nodes])
        return self._sums

    def numa_count(self, cpus: int) -> int:
        """``getNumaNodeCntForCPUID``: the distinct NUMA nodes of ``cpus`` (a CPU the
        topology does not list counts as node 0, Go's zero value)."""
        count = sum(1 for n, inside in self.in_numa.items() if cpus & inside)
        if cpus & ~self.all and not (0 in self.in_numa and cpus & self.in_numa[0]):
            count += 1
        return count


@lru_cache(maxsize=256)
def subset_table(nodes: tuple[int, ...]) -> tuple[tuple[int, int, int], ...]:
    """``IterateBitMasks`` over ``nodes`` (ascending NUMA ids): (NUMA mask, the same subset
    as a mask of indices into ``nodes``, its size), by size then in lexicographic order.
    Shared by every topology of the same NUMA layout; 2**len(nodes) - 1 rows (255 at the
    limit of :data:`app.ingest.numatopology.MAX_NUMA_NODES`)."""
    k = len(nodes)
    return tuple((sum(1 << nodes[i] for i in combo), sum(1 << i for i in combo), size)
                 for size in range(1, k + 1) for combo in combinations(range(k), size))  # fmt: skip


def subset_sums(counts: list[int]) -> list[int]:
    """For every index mask over ``counts``, the sum of the counts it selects."""
    sums = [0] * (1 << len(counts))
    for im in range(1, len(sums)):
        low = im & -im
        sums[im] = sums[im ^ low] + counts[low.bit_length() - 1]
    return sums


def take_by_topology(topo: CpuTopology, available: int, num: int) -> tuple[int, bool]:
    """``takeByTopology``: (the CPUs taken, True), or (empty, False) for Volcano's error."""
    details = available & topo.all
    result = 0
    need = num
    if need < 1:
        return 0, True
    if need > details.bit_count():
        return 0, False

    def take(cpus: int) -> None:
        nonlocal result, details, need
        result |= cpus
        details &= ~result
        need -= cpus.bit_count()

    cps, cpc = topo.cpus_per_socket, topo.cpus_per_core
    if need >= cps:  # 1. whole sockets ("free": socket ids that are ids of available CPUs)
        sockets = sorted({topo.detail[c][1] for c in bits(details)} & set(bits(details)))
        for s in sockets:
            take(details & topo.in_socket[s])
            if need < 1:
                return result, True
            if need < cps:
                break
    if need >= cpc:  # 2. whole cores
        for core in _free_cores(topo, details):
            take(details & topo.in_core[core])
            if need < 1:
                return result, True
            if need < cpc:
                break
    for cpu in _free_cpus(topo, details, result):  # 3. single CPUs
        if need >= 1:
            take(1 << cpu)
        if need < 1:
            return result, True
    return 0, False


def _free_cores(topo: CpuTopology, details: int) -> list[int]:
    """``freeCores``: per socket, its core ids that are also ids of available CPUs, the
    sockets sorted by how many such cores they have (Volcano's comparison: fewer, or a
    lower id)."""
    detail = topo.detail
    cpus = bits(details)
    ids = set(cpus)
    cores_of: dict[int, list[int]] = {}
    for c in cpus:
        _, s, core = detail[c]
        cores_of.setdefault(s, [])
        if core in ids and core not in cores_of[s]:
            cores_of[s].append(core)
    sockets = sorted(cores_of)
    go_sort_slice(sockets, lambda i, j: len(cores_of[i]) < len(cores_of[j]) or i < j)  # type: ignore[operator, index]
    return [core for s in sockets for core in sorted(cores_of[s])]


def _free_cpus(topo: CpuTopology, details: int, result: int) -> list[int]:
    """``freeCPUs``: the available CPUs core by core, the cores sorted by Volcano's
    comparison of (CPUs of the result on the core's socket, more first; free CPUs of the
    socket, fewer; free CPUs of the core, fewer; socket; core), each term alone deciding
    when it favours the first. A core's socket is that of the lowest CPU with its id."""
    detail = topo.detail
    keys: dict[int, tuple[int, int, int, int, int]] = {}
    for core in sorted({detail[c][2] for c in bits(details)}):
        socket = detail[(topo.in_core[core] & -topo.in_core[core]).bit_length() - 1][1]
        keys[core] = ((topo.in_socket[socket] & result).bit_count(), (details & topo.in_socket[socket]).bit_count(),
                      (details & topo.in_core[core]).bit_count(), socket, core)  # fmt: skip
    cores = list(keys)

    def less(i: object, j: object) -> bool:
        a, b = keys[i], keys[j]  # type: ignore[index]
        return a[0] > b[0] or a[1] < b[1] or a[2] < b[2] or a[3] < b[3] or a[4] < b[4]

    go_sort_slice(cores, less)
    return [cpu for core in cores for cpu in bits(details & topo.in_core[core])]


# -- the provider ---------------------------------------------------------------------------------
def whole_cpus(milli: int) -> int:
    """``guaranteedCPUs``: the request in whole CPUs, 0 when it is a fraction."""
    return milli // 1000 if milli % 1000 == 0 else 0


def cpu_hints(topo: CpuTopology, free: int | None, milli: int) -> list[tuple[int | None, bool]] | None:
    """``GetTopologyHints`` for a container asking for ``milli`` milli-CPUs on a node whose
    ``cpu`` set is ``free`` (None: the node lists no ``cpu`` in ``numares``): None for no
    preference, else the (mask, preferred) hints, possibly none."""
    request = whole_cpus(milli)
    if request == 0 or free is None:
        return None
    available = free & ~topo.reserved
    nodes = topo.numa_nodes
    counts = [(available & topo.in_numa[n]).bit_count() for n in nodes]
    if nodes and nodes[0] == 0:  # CPUs cpuDetail lacks: NUMA node 0 for Go
        counts[0] += (available & ~topo.all).bit_count()
    matching, in_mask = subset_sums(counts), topo._cpu_sums()
    smallest = len(nodes)
    found = []
    for mask, im, size in subset_table(tuple(nodes)):
        if size < smallest and in_mask[im] >= request:
            smallest = size
        if matching[im] >= request:
            found.append((mask, size))
    return [(mask, size == smallest) for mask, size in found]


def cpu_allocate(topo: CpuTopology, free: int | None, milli: int, hit: int | None) -> int:
    """``Allocate``: the CPUs a container asking for ``milli`` milli-CPUs takes on the node,
    given the policy's best hint mask ``hit`` (None: the none policy's empty hint)."""
    request = whole_cpus(milli)
    available = (free or 0) & ~topo.reserved
    result = 0
    if hit is not None:
        aligned = 0
        for n in bits(hit):
            aligned |= available & topo.in_numa.get(n, 0)
        got, ok = take_by_topology(topo, aligned, min(request, aligned.bit_count()))
        if not ok:
            return 0
        result = got
    rest, ok = take_by_topology(topo, available & ~result, request - result.bit_count())
    return result | rest if ok else 0
