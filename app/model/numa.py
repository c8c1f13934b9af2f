"""Volcano's node NUMA information (``nodeinfo.volcano.sh/v1alpha1`` ``Numatopology``) and
the facts of a pod the ``numa-aware`` plugin reads (its QoS class, its containers' CPUs).

CPU sets are Python ints used as bit sets (bit ``i``: CPU ``i``), as the plugin's set
algebra (union, difference, size) is then one integer operation.
"""

from __future__ import annotations

from dataclasses import dataclass

#: ``spec.policies`` keys Volcano reads (``nodeinfov1alpha1.CPUManagerPolicy`` / ``TopologyManagerPolicy``)
CPU_MANAGER_POLICY = "CPUManagerPolicy"
TOPOLOGY_MANAGER_POLICY = "TopologyManagerPolicy"
#: the resource whose NUMA sets the plugin's one hint provider (the CPU manager) reads
CPU = "cpu"


@dataclass(slots=True, frozen=True)
class Numatopology:
    """One node's ``Numatopology`` (its name is the node's) as Volcano's cache reads it
    (``getNumaInfo``): ``spec.policies``; ``spec.numares`` as resource name -> the
    ``allocatable`` CPU set (empty where ``cpuset.Parse`` fails, as Volcano's); the cpu
    reservation of ``spec.resReserved`` in milli-CPUs (None: none, or a list
    ``ParseResourceList`` refuses, which Volcano then drops whole); ``spec.cpuDetail`` as
    CPU id -> (NUMA node, socket, core); the pods of ``spec.podAllocations`` as (uid, name,
    namespace). ``notes``: what Volcano logs and works around (each a warning when the
    plugin runs)."""

    name: str
    policies: dict[str, str]
    numa_res: dict[str, int]
    reserved_cpu_milli: int | None
    cpu_detail: dict[int, tuple[int, int, int]]
    pod_allocations: tuple[tuple[str, str, str], ...]
    notes: tuple[str, ...]


@dataclass(slots=True, frozen=True)
class PodNuma:
    """What the plugin reads of a pod: whether its QoS class is Guaranteed (``GetPodQOS``:
    ``status.qosClass``, else computed from the spec), and each regular container's cpu
    request in milli-CPUs (0 when it has none), in ``spec.containers`` order."""

    guaranteed: bool
    cpus: tuple[int, ...]


def bits(x: int) -> list[int]:
    """The members of the CPU set ``x``, ascending."""
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


def from_ids(ids: list[int] | tuple[int, ...]) -> int:
    """The CPU set of ``ids``."""
    out = 0
    for i in ids:
        out |= 1 << i
    return out
