"""Kueue's topology ungater (``pkg/controller/tas/topology_ungater.go``) for the snapshot's pods.

A Workload admitted by TAS (``IsAdmittedByTAS``: ``status.admission`` set, its ``Admitted``
condition True, some podSet assignment with a ``topologyAssignment``) has its pods created with
the ``kueue.x-k8s.io/topology`` scheduling gate; the ungater removes the gate and writes the
pod's domain (the assignment's level labels) into its nodeSelector, after which kube-scheduler
places it. ``reconcile`` does the same for the pods a request's snapshot holds:

* **Pods of a podSet** (``podsForPodSet``): in the Workload's namespace, whose
  ``kueue.x-k8s.io/workload-slice-name`` annotation (else ``kueue.x-k8s.io/workload``) names the
  Workload's slice (its own ``workload-slice-name`` annotation, else its name), labelled
  ``kueue.x-k8s.io/podset`` with the podSet's name, not terminated; in name order (Kueue lists
  them from its informer cache's index, in no set order: name order is the deterministic one).
* **Rank offsets**: podSet assignments sharing a ``podSetGroupName`` form a group (the others one
  each, keyed by their position); in a group of two the smaller podSet (a LeaderWorkerSet's
  leader) takes ranks ``0..n-1`` and the larger the next ones; the first listed pod's
  ``kueue.x-k8s.io/pod-index-offset`` annotation (``strconv.Atoi``) is added to both the offset
  and the bound. An offset that does not parse fails the whole reconcile: no pod of the Workload
  is ungated.
* **By ranks** (``readRanksIfAvailable``): with the PodSet's ``podIndexLabel``, each pod's rank is
  its index label (an unsigned integer below the bound) minus the offset, or with
  ``subGroupIndexLabel`` (and a positive ``subGroupCount``) index + subGroupIndex × (count /
  subGroupCount) − offset. Rank ``r`` goes to the ``r``-th slot of the assignment (its domains
  expanded in order). A pod without the labels, a rank out of range or repeated, or an ungated
  pod whose nodeSelector is not its rank's domain: the greedy assignment instead.
* **Greedy** (``assignGatedPodsToDomainsGreedy``): each domain of the assignment, in order,
  takes the gated pods, in list order, it still lacks after counting the other pods whose
  nodeSelector names it.
* **Unhealthy nodes**: with ``status.unhealthyNodes`` and a hostname lowest level, a pod whose
  domain is such a node stays gated (it waits for the second pass's replacement).
* **Ungate** (``utilpod.Ungate``): the gate removed; the domain's labels copied into the
  nodeSelector. A pod with another gate stays unschedulable.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate

from app.ingest import gostrconv
from app.ingest.draft import PodDraft
from app.kueue.objects import Workload

TOPOLOGY_GATE = "kueue.x-k8s.io/topology"  # kueue.TopologySchedulingGate
OFFSET_ANNOTATION = "kueue.x-k8s.io/pod-index-offset"  # kueue.PodIndexOffsetAnnotation
SLICE_ANNOTATION = "kueue.x-k8s.io/workload-slice-name"  # kueue.WorkloadSliceNameAnnotation
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
PODSET_LABEL = "kueue.x-k8s.io/podset"
HOSTNAME = "kubernetes.io/hostname"
_TERMINAL = ("Succeeded", "Failed")
_SEP = ","  # utiltas.topologyDomainIDSeparator


@dataclass(frozen=True, slots=True)
class Ungate:
    """A pod the ungater ungates: its podSet and the labels it adds to the pod's nodeSelector."""

    pod: PodDraft
    pod_set: str
    node_labels: dict[str, str]


def node_name_from_domain_id(levels: list[str], domain_id: str) -> str | None:
    """``utiltas.NodeNameFromDomainID``: the domain ID itself when the lowest level is the
    hostname (the assignment then holds that level alone), else None."""
    return domain_id if levels and levels[-1] == HOSTNAME else None


def admitted_by_tas(wl: Workload) -> bool:
    """``workload.IsAdmittedByTAS``."""
    return wl.admitted and wl.ready.admitted_at is not None and bool(wl.topology_assignments)


def slice_key(p: PodDraft) -> str | None:
    """``IndexPodWorkloadSliceName``: the pod's Workload slice (None: it names none)."""
    return p.annotations.get(SLICE_ANNOTATION, p.annotations.get(WORKLOAD_ANNOTATION))


def _int32(v: int) -> int:
    return gostrconv.go_int32(v)


class _Assignment:
    """A podSet's ``topologyAssignment``: its levels and domains, and ``rankToDomainID`` without
    expanding the counts (a rank's slot found by bisection)."""

    def __init__(self, levels: list[str], domains: list[tuple[tuple[str, ...], int]]) -> None:
        self.levels = levels
        self.domains = domains
        self.ids = [_SEP.join(values) for values, _ in domains]
        self.ends = list(accumulate(max(count, 0) for _, count in domains))
        self.total = self.ends[-1] if self.ends else 0

    def domain_of_rank(self, rank: int) -> int:
        return bisect_right(self.ends, rank)

    def id_of(self, selector: dict[str, str]) -> str:
        """``DomainID(LevelValues(levels, nodeSelector))``."""
        return _SEP.join(selector.get(k, "") for k in self.levels)


def _read_uint_below(p: PodDraft, key: str, bound: int) -> int | None:
    """``utilpod.ReadUIntFromLabelBelowBound``: the label as ``strconv.ParseUint(v, 10, 0)`` below
    ``bound`` (compared as Go does, ``uint64(bound)``); None where Go errs."""
    raw = p.labels.get(key)
    if raw is None or not raw.isascii() or not raw.isdigit():
        return None
    digits = raw.lstrip("0") or "0"
    if len(digits) > 20:
        return None
    v = int(digits)
    if v >= 2**64 or v >= bound % 2**64:
        return None
    return v - 2**64 if v >= 2**63 else v  # (int(uintValue): past int64, negative)


def _ranks(pods: list[PodDraft], count: int, index_label: str, sub_label: str | None, sub_count: int | None,
           offset: int, max_rank: int) -> dict[int, PodDraft] | None:  # fmt: skip
    """``readRanksForLabels``; None where it errs."""
    single = count
    if sub_label is not None:
        if sub_count is None or sub_count <= 0:  # (errInvalidSubGroupCount)
            return None
        single = count // sub_count
    out: dict[int, PodDraft] = {}
    for p in pods:
        index = _read_uint_below(p, index_label, max_rank)
        if index is None:
            return None
        rank = index - offset
        if sub_label is not None:
            job = _read_uint_below(p, sub_label, sub_count)  # type: ignore[arg-type]
            if job is None or index >= single:
                return None
            rank = index + job * single - offset
        if rank >= count or rank < 0 or rank in out:
            return None
        out[rank] = p
    return out


def _by_ranks(a: _Assignment, pods: list[PodDraft], gated: Callable[[PodDraft], bool], count: int,
              tr: object, offset: int, max_rank: int) -> list[tuple[PodDraft, int]] | None:  # fmt: skip
    """``readRanksIfAvailable`` + ``assignGatedPodsToDomainsByRanks``: the gated pods and the
    index of their rank's domain, or None (the greedy assignment then)."""
    label = getattr(tr, "pod_index_label", None)
    if label is None:
        return None
    ranks = _ranks(pods, count, label, tr.sub_group_index_label, tr.sub_group_count, offset, max_rank)  # type: ignore[attr-defined]
    if ranks is None:
        return None
    for rank, p in ranks.items():
        if rank >= a.total:  # (an assignment covering fewer pods than the count)
            return None
        if not gated(p) and a.ids[a.domain_of_rank(rank)] != a.id_of(p.node_selector):
            return None
    return [(p, a.domain_of_rank(rank)) for rank, p in sorted(ranks.items()) if gated(p)]


def _greedy(a: _Assignment, pods: list[PodDraft], gated: Callable[[PodDraft], bool]) -> list[tuple[PodDraft, int]]:
    """``assignGatedPodsToDomainsGreedy``."""
    waiting = [p for p in pods if gated(p)]
    held: dict[str, int] = {}
    for p in pods:
        if not gated(p):
            d = a.id_of(p.node_selector)
            held[d] = held.get(d, 0) + 1
    out: list[tuple[PodDraft, int]] = []
    for i, (_, count) in enumerate(a.domains):
        lacking = max(count - held.get(a.ids[i], 0), 0)
        take = min(lacking, max(len(waiting) - len(out), 0))
        out.extend((p, i) for p in waiting[len(out):len(out) + take])
    return out


def reconcile(wl: Workload, pods: list[PodDraft], gated: Callable[[PodDraft], bool]) -> tuple[list[Ungate], str]:
    """The ungater's ``Reconcile`` for an admitted-by-TAS Workload: the pods it ungates, or
    ([], why) when the reconcile fails. ``pods``: the snapshot's pods of the Workload's slice
    (any podSet), ``gated``: whether a pod carries the topology gate."""
    requests = {ps.name: ps.topology for ps in wl.pod_sets}
    if any(count is None for _, count, _ in wl.assignments):
        return [], ("a podSetAssignment of its status.admission has no count: Kueue's topology ungater dereferences it "
                    "(the reconcile panics and is recovered as an error), so it ungates none of its pods")  # fmt: skip
    psas = [(name, count) for name, count, _ in wl.assignments]
    groups: dict[str, list[tuple[str, int]]] = {}
    for i, (name, count) in enumerate(psas):
        tr = requests.get(name)
        groups.setdefault(tr.group if tr is not None and tr.group is not None else str(i), []).append((name, count))
    offsets: dict[str, int] = {}
    bounds: dict[str, int] = {}
    for members in groups.values():
        if len(members) > 1:  # (a LeaderWorkerSet: the smaller podSet is the leader, rank 0)
            small, large = members[0], members[1]
            if small[1] > large[1]:
                small, large = large, small
            offsets[small[0]], offsets[large[0]] = 0, small[1]
            bounds[small[0]], bounds[large[0]] = small[1], _int32(large[1] + small[1])
        else:
            offsets[members[0][0]], bounds[members[0][0]] = 0, members[0][1]
    by_set: dict[str, list[PodDraft]] = {}
    for p in sorted(pods, key=lambda p: p.name):
        if p.phase not in _TERMINAL and PODSET_LABEL in p.labels:
            by_set.setdefault(p.labels[PODSET_LABEL], []).append(p)
    out: list[Ungate] = []
    for name, count in psas:
        ta = wl.topology_assignments.get(name)
        if ta is None:
            continue
        listed = by_set.get(name, [])
        if listed and (raw := listed[0].annotations.get(OFFSET_ANNOTATION)) is not None:
            v, err = gostrconv.parse_int_err(raw)
            if v is None:
                return [], (f"pod {listed[0].namespace}/{listed[0].name}'s {OFFSET_ANNOTATION} annotation {raw!r} does not "
                            f"parse (strconv.Atoi: {err}): Kueue's topology ungater fails its reconcile and ungates none "
                            "of the Workload's pods")  # fmt: skip
            offsets[name] = _int32(offsets.get(name, 0) + _int32(v))
            bounds[name] = _int32(bounds.get(name, 0) + _int32(v))
        a = _Assignment(*ta)
        found = _by_ranks(a, listed, gated, count, requests.get(name), offsets.get(name, 0), bounds.get(name, 0))
        if found is None:
            found = _greedy(a, listed, gated)
        if wl.unhealthy_nodes:
            bad = set(wl.unhealthy_nodes)
            found = [(p, i) for p, i in found if node_name_from_domain_id(a.levels, a.ids[i]) not in bad]
        out.extend(Ungate(p, name, dict(zip(a.levels, a.domains[i][0]))) for p, i in found)
    return out, ""
