"""Volcano's node oversubscription, as Volcano's cache reads a Node.

volcano-agent (colocation) writes on a node the CPU and memory it lends to offline work:
annotations ``volcano.sh/oversubscription-cpu`` (millicores) and
``volcano.sh/oversubscription-memory`` (bytes) (``pkg/scheduler/api/well_known_labels.go``).
Volcano's ``NodeInfo.setOversubscription`` reads them with ``strconv.ParseFloat``, its error
dropped (a value it cannot read is 0; one past float64's range is infinite), whatever the
node's ``volcano.sh/oversubscription`` label says, and ``setNode`` adds them to the node's
allocatable, capacity and idle, so allocate, preempt and the queue plugins (the cluster's total)
see the larger node (but for the kube-scheduler scores of ``nodeorder``, which read the Node
object's allocatable: ``Draft.node_scoring``). Under the ``volcano`` profile and a volcano-scheduler.conf only (KAI,
Kueue and kube-scheduler read no such annotation). Gangplank keeps whole millicores and bytes
(a fraction is dropped: a pod's request is whole, so what fits is the same), an amount that
would leave the node less than nothing leaves it none, and an infinite or NaN one is a 422 at
the annotation (no node lends unbounded CPU).
"""

from __future__ import annotations

import math

from app.errors import InputError, join_pointer
from app.ingest.draft import Draft
from app.ingest.gostrconv import parse_float, parse_float_value
from app.ingest.kube import OVERSUBSCRIPTION_CPU, OVERSUBSCRIPTION_MEMORY

#: annotation -> the resource it adds to
RESOURCES = ((OVERSUBSCRIPTION_CPU, "cpu"), (OVERSUBSCRIPTION_MEMORY, "memory"))


def apply(d: Draft) -> None:
    """Add each annotated node's oversubscription to its allocatable (the map replaced: the
    readers share maps); notes name the nodes and any value read as 0."""
    if not d.oversubscription:
        return
    lent: list[str] = []
    unread: list[str] = []
    for n in d.nodes:
        got = d.oversubscription.get(n.name)
        if got is None:
            continue
        ptr, ann = got
        d.node_scoring[n.name] = n.allocatable
        alloc = dict(n.allocatable)
        for key, resource in RESOURCES:
            if key not in ann:
                continue
            value = parse_float_value(ann[key])
            if not math.isfinite(value):
                raise InputError(f"{key} {ann[key]!r} is not a finite number (Volcano would read it as {value}: a node "
                                 "lending unbounded resources)", join_pointer(ptr, "metadata", "annotations", key),
                                 {"kind": "Node", "name": n.name})  # fmt: skip
            if parse_float(ann[key]) is None:
                unread.append(f"{n.name} ({key}: {ann[key]!r})")
            alloc[resource] = max(0, alloc.get(resource, 0) + math.trunc(value))
        n.allocatable = alloc
        lent.append(n.name)
    if lent:
        d.notes.append(f"{len(lent)} node(s) carry Volcano's oversubscription annotations (e.g. {min(lent)}): Volcano adds "
                       f"{OVERSUBSCRIPTION_CPU} (millicores) and {OVERSUBSCRIPTION_MEMORY} (bytes) to their allocatable, "
                       "so does this profile")  # fmt: skip
    if unread:
        d.notes.append(f"{len(unread)} oversubscription annotation(s) are not numbers strconv.ParseFloat reads (e.g. "
                       f"{min(unread)}): Volcano reads them as 0, so does this profile")  # fmt: skip
