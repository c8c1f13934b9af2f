"""The native compact snapshot form (``cluster``) into a :class:`Draft`.

For controllers that do not speak Kubernetes objects. It carries the same facts with less
ceremony: pods give their effective ``requests`` directly and name their gang with
``group``; gangs, queues, HyperNodes, priority classes and PDBs are flat records. See the
``NativeCluster`` schema in ``openapi/openapi.json``.
"""

from __future__ import annotations

import json
from itertools import chain
from typing import Any

import orjson

from app.errors import InputError, LimitError, join_pointer
from app.ingest import reader as r
from app.ingest.columns import read_columns
from app.ingest.draft import Draft, GroupDraft, GroupRef, NodeDraft, PodBlock, PodDraft, TopologySource
from app.ingest.fastjson import SECTIONS, TABLE_COLUMNS, NodeRecords, PodTable
from app.ingest.kube import (
    _PHASES,
    _int_or_percent,
    apply_koordinator,
    network_topology,
    node_group_affinity,
    selector,
    subgroup_policies,
)
from app.ingest.quantity import CACHE_MAX, canonical_quantity, check_resource_name, quantity_map
from app.model.cluster import PodDisruptionBudget, PriorityClass, Queue
from app.model.selectors import LabelSelector
from app.topology.tree import HyperNodeSpec, MemberSpec


def _records(c: dict, key: str, ptr: str, limit: int) -> list[tuple[dict, str]]:
    items = r.lst(c, key, ptr, None)
    if len(items) > limit:
        raise LimitError(f"more than {limit} {key} (limit GANGPLANK_MAX_OBJECTS)", join_pointer(ptr, key), kind="too-many-objects")
    out = []
    for i, it in enumerate(items):
        p = f"{ptr}/{key}/{i}"
        if not isinstance(it, dict):
            raise InputError(f"each entry of '{key}' must be an object", p)
        out.append((it, p))
    return out


def _name(o: dict, p: str, kind: str, *, namespaced: bool) -> tuple[str, str, dict[str, str]]:
    ns = r.string(o, "namespace", p, None, default="default") if namespaced else ""
    name = o.get("name")
    ident = {"kind": kind, "name": name if isinstance(name, str) else ""}
    if namespaced:
        ident["namespace"] = ns or "default"
    name = r.string(o, "name", p, ident, required=True)
    if not name:
        raise InputError("'name' must not be empty", join_pointer(p, "name"), ident)
    return ns or "default", name, ident


def _member_fast(m: Any, p: str, i: int) -> MemberSpec | None:
    """Member ``i`` of the HyperNode at ``p`` in the common shape (``{"exactMatch": name}``,
    with an optional ``type``), as :func:`_member` reads it; None for anything else."""
    if type(m) is not dict:
        return None
    exact, mtype = m.get("exactMatch"), m.get("type", "Node")
    if type(exact) is str and exact and (mtype == "Node" or mtype == "HyperNode") and len(m) == 1 + ("type" in m):  # noqa: PLR1714
        return MemberSpec(mtype, exact, None, None, f"{p}/members/{i}")
    return None


def _member(m: Any, p: str, i: int, ident: dict[str, str]) -> MemberSpec:
    """Member ``i`` of the HyperNode at ``p``, every field checked."""
    mp = join_pointer(p, "members", i)
    if not isinstance(m, dict):
        raise InputError("a member must be an object", mp, ident)
    mtype = r.string(m, "type", mp, ident, default="Node")
    if mtype not in ("Node", "HyperNode"):
        raise InputError("member type must be 'Node' or 'HyperNode'", join_pointer(mp, "type"), ident)
    chosen = [k for k in ("exactMatch", "regexMatch", "labelMatch") if m.get(k) is not None]
    if len(chosen) != 1:
        raise InputError("a member needs exactly one of exactMatch, regexMatch, labelMatch", mp, ident)
    if mtype == "HyperNode" and chosen[0] != "exactMatch":
        raise InputError("HyperNode members support exactMatch only", join_pointer(mp, chosen[0]), ident)
    labels = m.get("labelMatch")
    return MemberSpec(
        type=mtype,
        exact=r.string(m, "exactMatch", mp, ident) or None,
        regex=r.string(m, "regexMatch", mp, ident) or None,
        labels=None if labels is None else LabelSelector.parse(labels, join_pointer(mp, "labelMatch"), ident),
        pointer=mp,
    )


def read_native(c: Any, ptr: str, d: Draft, *, max_objects: int) -> None:
    if not isinstance(c, dict):
        raise InputError("'cluster' must be an object", ptr)
    for k in sorted(c):
        if k not in SECTIONS:
            raise InputError(
                f"unknown section {k!r} (known: {', '.join(SECTIONS)})", join_pointer(ptr, k), kind="unknown-field"
            )
    for o, p in _records(c, "priorityClasses", ptr, max_objects):
        _, name, ident = _name(o, p, "PriorityClass", namespaced=False)
        pc = PriorityClass(
            name=name,
            value=r.integer(o, "value", p, ident, required=True, maximum=2_000_001_000),  # type: ignore[arg-type]
            global_default=bool(r.boolean(o, "globalDefault", p, ident, default=False)),
            preemption_policy=r.string(o, "preemptionPolicy", p, ident, default="PreemptLowerPriority"),
        )
        d.priority_classes.append((pc, p, ident))
    nodes = c.get("nodes")
    typed = None
    if type(nodes) is NodeRecords:
        typed = _nodes_typed(nodes, f"{ptr}/nodes/") if len(nodes) <= max_objects else None
        if typed is None:
            c = {**c, "nodes": nodes.as_dicts()}  # what orjson would have given: read as ever
        d.nodes += typed or ()
    for o, p in _records(c, "nodes", ptr, max_objects) if typed is None else ():
        node = _node_fast(o, p)
        if node is not None:
            d.nodes.append(node)
            continue
        _, name, ident = _name(o, p, "Node", namespaced=False)
        taints = tuple(t for t in r.lst(o, "taints", p, ident))
        for i, t in enumerate(taints):
            if not isinstance(t, dict) or not isinstance(t.get("key"), str) or t.get("effect") not in (
                "NoSchedule", "PreferNoSchedule", "NoExecute",
            ):  # fmt: skip
                raise InputError("a taint needs a string 'key' and an 'effect'", join_pointer(p, "taints", i), ident)
        d.nodes.append(
            NodeDraft(
                name=name,
                uid=r.string(o, "uid", p, ident),
                labels=r.str_map(o, "labels", p, ident),
                taints=taints,
                unschedulable=bool(r.boolean(o, "unschedulable", p, ident, default=False)),
                ready=r.boolean(o, "ready", p, ident, default=True) is not False,
                allocatable=quantity_map(o.get("allocatable") or {}, join_pointer(p, "allocatable"), ident),
                pointer=p,
                ident=ident,
            )
        )
    for o, p in _records(c, "queues", ptr, max_objects):
        _, name, ident = _name(o, p, "Queue", namespaced=False)

        def res(key: str, o: dict = o, p: str = p, ident: dict = ident) -> dict[str, int] | None:
            return None if o.get(key) is None else quantity_map(o[key], join_pointer(p, key), ident)

        d.queues.append(
            Queue(
                name=name,
                source="native",
                weight=r.integer(o, "weight", p, ident, default=1, minimum=1, maximum=65535) or 1,
                capability=res("capability"),
                deserved=res("deserved"),
                guarantee=res("guarantee"),
                reclaimable=r.boolean(o, "reclaimable", p, ident, default=True) is not False,
                priority=r.integer(o, "priority", p, ident, default=0) or 0,
                parent=r.string(o, "parent", p, ident),
                state=r.string(o, "state", p, ident, default="Open") or "Open",
                created=r.timestamp(o.get("createdAt"), join_pointer(p, "createdAt"), ident),
                affinity=node_group_affinity(o.get("affinity"), join_pointer(p, "affinity"), ident),
                pointer=p,
            )
        )
    for o, p in _records(c, "groups", ptr, max_objects):
        ns, name, ident = _name(o, p, "PodGroup", namespaced=True)
        mtm = {}
        for role, v in r.obj(o, "minTaskMember", p, ident).items():
            mtm[role] = r.integer({role: v}, role, join_pointer(p, "minTaskMember"), ident, minimum=0) or 0
        g = GroupDraft(
            source="native",
            namespace=ns,
            name=name,
            uid=r.string(o, "uid", p, ident),
            min_member=r.integer(o, "minMember", p, ident, default=1, minimum=0) or 0,
            min_task_member=mtm,
            min_resources=None
            if o.get("minResources") is None
            else quantity_map(o["minResources"], join_pointer(p, "minResources"), ident),
            queue=r.string(o, "queue", p, ident),
            priority_class=r.string(o, "priorityClassName", p, ident),
            priority=r.integer(o, "priority", p, ident),
            network_topology=network_topology(o.get("networkTopology"), join_pointer(p, "networkTopology"), ident),
            subgroup_policies=subgroup_policies(r.lst(o, "subGroupPolicy", p, ident), join_pointer(p, "subGroupPolicy"), ident),
            phase=r.string(o, "phase", p, ident),
            preemptable=r.boolean(o, "preemptable", p, ident),
            created=r.timestamp(o.get("createdAt"), join_pointer(p, "createdAt"), ident),
            pointer=p,
            ident=ident,
        )
        mode = r.string(o, "disruptionMode", p, ident)
        if mode not in ("", "Pod", "PodGroup"):
            raise InputError("disruptionMode must be 'Pod' or 'PodGroup'", join_pointer(p, "disruptionMode"), ident)
        g.disruption_mode = mode or "Pod"
        g.preemption_policy = r.string(o, "preemptionPolicy", p, ident)
        g.preemption_priority = r.integer(o, "preemptionPriority", p, ident)
        gang = r.obj(o, "gang", p, ident)  # Koordinator semantics, same words as its annotations
        apply_koordinator(g, {k: str(v) if not isinstance(v, list) else _json(v) for k, v in gang.items()}, join_pointer(p, "gang"), ident)
        d.groups.append(g)
    items = c.get("pods")
    if type(items) is not PodTable:
        items = r.lst(c, "pods", ptr, None)
    if len(items) > max_objects:
        raise LimitError(f"more than {max_objects} pods (limit GANGPLANK_MAX_OBJECTS)", f"{ptr}/pods", kind="too-many-objects")
    base = f"{ptr}/pods/"
    bulk = _pods_typed(items, base) if type(items) is PodTable else None
    if bulk is None:
        if type(items) is PodTable:
            items = items.as_dicts()  # what orjson would have given: read as ever
        bulk = _pods_columnar(items, base)
    if bulk is not None:
        d.pod_blocks.append(bulk)
        items = []
    append = d.pods.append
    for i, o in enumerate(items):
        p = base + str(i)
        pod = _pod_fast(o, p) if type(o) is dict else None
        append(pod if pod is not None else _pod_slow(o, p))
    cols = c.get("podColumns")
    if cols is not None:
        # blocks follow ``d.pods`` in task order, as the columns follow the records here
        d.pod_blocks.append(read_columns(cols, join_pointer(ptr, "podColumns"), [n.name for n in d.nodes], max_objects=max_objects))
    for o, p in _records(c, "hyperNodes", ptr, max_objects):
        _, name, ident = _name(o, p, "HyperNode", namespaced=False)
        members = []
        for i, m in enumerate(r.lst(o, "members", p, ident, required=True)):
            members.append(_member_fast(m, p, i) or _member(m, p, i, ident))
        if not members:
            raise InputError("a HyperNode needs at least one member", join_pointer(p, "members"), ident)
        d.hypernodes.append(
            HyperNodeSpec(
                name=name,
                tier=r.integer(o, "tier", p, ident, required=True, minimum=0),  # type: ignore[arg-type]
                tier_name=r.string(o, "tierName", p, ident) or None,
                members=members,
                pointer=p,
                obj=ident,
            )
        )
    topo = c.get("topology")
    if topo is not None:
        tp = join_pointer(ptr, "topology")
        if not isinstance(topo, dict):
            raise InputError("'topology' must be an object with 'levels'", tp)
        levels = r.lst(topo, "levels", tp, None, required=True)
        if not levels or not all(isinstance(x, str) and x for x in levels):
            raise InputError("'levels' must list node label keys, coarsest first", join_pointer(tp, "levels"))
        d.topologies.append(TopologySource("kai", r.string(topo, "name", tp, None, default="topology"), list(levels), tp))
    for o, p in _records(c, "podDisruptionBudgets", ptr, max_objects):
        ns, name, ident = _name(o, p, "PodDisruptionBudget", namespaced=True)
        min_av = _int_or_percent(o.get("minAvailable"), join_pointer(p, "minAvailable"), ident)
        max_un = _int_or_percent(o.get("maxUnavailable"), join_pointer(p, "maxUnavailable"), ident)
        if min_av is not None and max_un is not None:
            raise InputError("set minAvailable or maxUnavailable, not both", join_pointer(p, "maxUnavailable"), ident)
        d.pdbs.append(
            PodDisruptionBudget(
                namespace=ns,
                name=name,
                selector=selector(o.get("selector"), join_pointer(p, "selector"), ident),
                min_available=min_av,
                max_unavailable=max_un,
                disruptions_allowed=r.integer(o, "disruptionsAllowed", p, ident, default=0, minimum=0) or 0,
                disrupted_pods=frozenset(str(x) for x in r.lst(o, "disruptedPods", p, ident)),
            )
        )


def _json(v: list) -> str:
    """``v`` as JSON text, as an annotation would hold it (an integer past 64 bits, which a
    YAML body can carry and orjson does not write, in Python's own encoder)."""
    try:
        return orjson.dumps(v).decode()
    except TypeError:
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


_FAST_KEYS = frozenset(
    {"name", "namespace", "uid", "node", "phase", "priority", "requests", "group", "role", "queue", "createdAt",
     "preemptable", "labels"}
)  # fmt: skip


_REQ_CACHE: dict[tuple, dict[str, int]] = {}


def _pods_columnar(items: list, base: str) -> PodBlock | None:
    """All pods at once, column by column, when every record has the common shape.

    Columns are pulled out with comprehensions and checked by type in bulk; identical
    request maps are converted once. Anything unusual returns None and the records are
    read one by one (which reports the exact error).
    """
    n = len(items)
    if n < 64 or set(map(type, items)) != {dict}:
        return None
    present = set().union(*items)  # one C-level pass over the keys; a column no record has is a constant
    if not _FAST_KEYS.issuperset(present):
        return None

    def column(key: str, default: Any) -> list:
        return [o.get(key, default) for o in items] if key in present else [default] * n

    names, nss, nodes, phases = column("name", None), column("namespace", "default"), column("node", ""), column("phase", "Pending")
    prios, groups, roles, queues = column("priority", None), column("group", ""), column("role", ""), column("queue", "")
    uids, pres, labels = column("uid", ""), column("preemptable", None), column("labels", None)
    reqs, created = column("requests", None), column("createdAt", None)
    strs = [c for k, c in (("namespace", nss), ("node", nodes), ("group", groups), ("role", roles), ("queue", queues),
                           ("uid", uids)) if k in present]  # fmt: skip
    if not set(map(type, names)) <= {str} or not all(set(map(type, col)) <= {str} for col in strs):
        return None
    if not set(map(type, phases)) <= {str} or ("priority" in present and not set(map(type, prios)) <= {int, type(None)}):
        return None
    if "priority" in present and any(p is not None and not r.INT64_MIN <= p <= r.INT64_MAX for p in prios):
        return None  # (the full reader names it)
    for key, col, types in (("preemptable", pres, {bool, type(None)}), ("createdAt", created, {str, type(None)}),
                            ("labels", labels, {dict, type(None)}), ("requests", reqs, {dict, type(None)})):  # fmt: skip
        if key in present and not set(map(type, col)) <= types:
            return None
    if "labels" in present and any(lab and r.plain_str_map(lab) is None for lab in labels):
        return None
    if "requests" in present and not _UNCACHED_TYPES.isdisjoint(set(map(type, chain.from_iterable(map(dict.values, filter(None, reqs)))))):
        return None  # True == 1 == 1.0: a remembered request must not answer for a boolean or a float (see _remembered)
    req_out = _pod_requests(reqs)
    if req_out is None:
        return None
    cols = (nss, names, uids, nodes, phases, prios, req_out, labels if "labels" in present else None, groups, queues, roles, pres)
    return _pod_block(cols, created, base)


def _pod_requests(reqs: list[dict | None]) -> list[dict[str, int]] | None:
    """Each pod's request map (None or absent: none) in canonical units, its pod slot
    added, identical maps converted once and shared (drafts never change them); None
    when one needs the full reader."""
    out = []
    cache = _REQ_CACHE
    try:
        for r_ in reqs:
            hit = cache.get(tuple(r_.items()) if r_ else ())  # the hot loop: the lookup of _remembered inline
            if hit is None:
                hit = _remembered(r_ or {}, cache, pod=True)
                if hit is None:
                    return None
            out.append(hit)
    except TypeError:  # an unhashable value
        return None
    return out


_TEXT_REQ_CACHE: dict[bytes, dict[str, int]] = {}  # a pod's request map by its JSON text
_UNCACHED_TYPES = frozenset({bool, float})  # value types a remembered map must not be looked up for


def _pods_typed(items: PodTable, base: str) -> PodBlock | None:
    """:func:`_pods_columnar` for pods the typed first pass read (see
    :mod:`app.ingest.fastjson`): every field already has its JSON type, and a request map
    is converted once per distinct JSON text. None when a value needs the full reader."""
    if not len(items):
        return None
    nss, names, uids, nodes, phases, prios, labels, groups, queues, roles, pres, created = (
        items.columns[k] for k in TABLE_COLUMNS
    )
    cache = _TEXT_REQ_CACHE  # shared by concurrent requests: written to, never read back by key
    maps = []  # this request's map of each distinct text (no requests, b"": the pod slot alone)
    for text in items.texts:
        if not text:
            maps.append(_remembered({}, _REQ_CACHE, pod=True))
            continue
        hit = cache.get(text)
        if hit is None:
            value = items.values[text]
            hit = _remembered(value or {}, _REQ_CACHE, pod=True) if value is None or type(value) is dict else None
            if hit is None:
                return None
            if len(cache) >= CACHE_MAX:
                cache.clear()
            cache[text] = hit  # the same text always reads as the same map
        maps.append(hit)
    ordinals = items.ordinals
    req_out = list(map(maps.__getitem__, ordinals))
    cols = (nss, names, uids, nodes, phases, prios, req_out, labels if any(labels) else None, groups, queues, roles, pres)
    block = _pod_block(cols, created, base)
    if block is not None:
        block.req_maps, block.req_ordinals = maps, ordinals
    return block


def _pod_block(cols: tuple[list, ...], created: list[str | None], base: str) -> PodBlock | None:
    """The checks both column readers share, then the block; None for the full reader."""
    nss, names, phases = cols[0], cols[1], cols[4]
    if not all(names) or not set(phases) <= _PHASES:
        return None
    if not all(nss):  # an empty namespace is the default one, as the record readers read it
        cols = (["default" if not ns else ns for ns in nss], *cols[1:])
    try:
        when = {t: r.timestamp(t, "", None) for t in set(created)}  # snapshots repeat timestamps a lot
    except InputError:
        return None
    return PodBlock(*cols, list(map(when.__getitem__, created)), base, False)


_NODE_KEYS = frozenset({"name", "uid", "labels", "allocatable", "unschedulable", "ready"})
_ALLOC_CACHE: dict[tuple, dict[str, int]] = {}


def _remembered(raw: dict, cache: dict[tuple, dict[str, int]], *, pod: bool) -> dict[str, int] | None:
    """The resource map ``raw`` in canonical units (``pod``: a pod's request, its pod slot
    added), converted once per distinct map and shared (callers never change it); None
    when anything in it is not plainly valid, for the full reader to report: a resource
    name, a quantity, an unhashable value, or a boolean (``True == 1`` would otherwise
    find the map remembered for the number). A map with a float is converted each time:
    ``2**60 == 2.0**60``, but the float reads as its shortest decimal, a different
    quantity, so neither may answer for the other."""
    types = set(map(type, raw.values()))
    if bool in types:
        return None
    key = tuple(raw.items())
    try:
        hit = cache.get(key) if float not in types else None
    except TypeError:
        return None
    if hit is None:
        if any(check_resource_name(k) is not None for k in raw):
            return None
        try:
            hit = {k: canonical_quantity(k, v) for k, v in key}
        except (ValueError, TypeError):
            return None
        if pod:
            hit["pods"] = hit.get("pods", 0) + 1000
        if float in types:
            return hit
        if len(cache) >= CACHE_MAX:
            cache.clear()
        cache[key] = hit
    return hit


def _nodes_typed(items: NodeRecords, base: str) -> list[NodeDraft] | None:
    """The nodes the typed first pass read (see :mod:`app.ingest.fastjson`), as
    :func:`_node_fast` reads each, every distinct allocatable text converted once (the
    maps are shared: nothing changes a draft's allocatable); None when one needs the full
    reader."""
    maps = {b"": _remembered({}, _ALLOC_CACHE, pod=False)}
    for text, alloc in items.values.items():
        hit = _remembered(alloc or {}, _ALLOC_CACHE, pod=False) if alloc is None or type(alloc) is dict else None
        if hit is None:
            return None
        maps[text] = hit
    if not all(o.name for o in items):
        return None
    return [
        NodeDraft(o.name, o.uid, o.labels or {}, (), o.unschedulable, o.ready, maps[text], base + str(i),
                  {"kind": "Node", "name": o.name})  # fmt: skip
        for i, (o, text) in enumerate(zip(items, items.texts, strict=True))
    ]


def _node_fast(o: dict, p: str) -> NodeDraft | None:
    """The common node shape (no taints), checked with cheap type tests and identical
    allocatable maps converted once; None sends it to the full reader."""
    if not _NODE_KEYS.issuperset(o):
        return None
    get = o.get
    name, uid, labels, alloc = get("name"), get("uid", ""), get("labels"), get("allocatable")
    unschedulable, ready = get("unschedulable", False), get("ready", True)
    if type(name) is not str or not name or type(uid) is not str or type(unschedulable) is not bool or type(ready) is not bool:
        return None
    labels = r.plain_str_map(labels)
    if labels is None:
        return None
    if alloc is None:
        alloc = {}
    elif type(alloc) is not dict:
        return None
    hit = _remembered(alloc, _ALLOC_CACHE, pod=False)
    if hit is None:
        return None
    return NodeDraft(name, uid, labels, (), unschedulable, ready, dict(hit), p, {"kind": "Node", "name": name})


def _pod_fast(o: dict, p: str) -> PodDraft | None:
    """The common pod shape, checked with cheap type tests; None sends it to the full reader."""
    if not _FAST_KEYS.issuperset(o):
        return None
    get = o.get
    name = get("name")
    ns = get("namespace", "default")
    node = get("node", "")
    phase = get("phase", "Pending")
    prio = get("priority")
    group = get("group", "")
    role = get("role", "")
    queue = get("queue", "")
    uid = get("uid", "")
    pre = get("preemptable")
    if (
        type(name) is not str or not name or type(ns) is not str or not ns or type(node) is not str
        or type(phase) is not str or phase not in _PHASES
        or (prio is not None and (type(prio) is not int or not r.INT64_MIN <= prio <= r.INT64_MAX)) or type(group) is not str
        or type(role) is not str or type(queue) is not str or type(uid) is not str
        or (pre is not None and type(pre) is not bool)
    ):  # fmt: skip
        return None
    labels = r.plain_str_map(get("labels"))
    if labels is None:
        return None
    raw = get("requests")
    if raw is not None and type(raw) is not dict:
        return None
    req = _remembered(raw or {}, _REQ_CACHE, pod=True)
    if req is None:
        return None
    created = get("createdAt")
    try:
        ts = r.timestamp(created, "", None) if created is not None else 0.0
    except InputError:
        return None
    ident = {"kind": "Pod", "name": name, "namespace": ns}
    return PodDraft(
        ns, name, uid, node, phase, False, prio, "", req, labels, {},
        GroupRef("native", group, p + "/group") if group else None, queue, role, "", pre, ts, "", False, "",
        {}, None, (), None, p, ident,
    )  # fmt: skip


def _pod_slow(o: Any, p: str) -> PodDraft:
    """Every field of a native pod, validated, with exact error locations."""
    if not isinstance(o, dict):
        raise InputError("each entry of 'pods' must be an object", p)
    ns, name, ident = _name(o, p, "Pod", namespaced=True)
    phase = r.string(o, "phase", p, ident, default="Pending")
    if phase not in _PHASES:
        raise InputError(f"unknown pod phase {phase!r}", join_pointer(p, "phase"), ident)
    group = r.string(o, "group", p, ident)
    req = quantity_map(o.get("requests") or {}, join_pointer(p, "requests"), ident)
    req["pods"] = req.get("pods", 0) + 1000
    tolerations = r.objects(o, "tolerations", p, ident, "a toleration")
    return PodDraft(
        namespace=ns,
        name=name,
        uid=r.string(o, "uid", p, ident),
        node_name=r.string(o, "node", p, ident),
        phase=phase,
        deleting=bool(r.boolean(o, "deleting", p, ident, default=False)),
        priority=r.integer(o, "priority", p, ident),
        priority_class=r.string(o, "priorityClassName", p, ident),
        req=req,
        labels=r.str_map(o, "labels", p, ident),
        annotations=r.str_map(o, "annotations", p, ident),
        group=GroupRef("native", group, join_pointer(p, "group")) if group else None,
        queue=r.string(o, "queue", p, ident),
        role=r.string(o, "role", p, ident),
        subgroup=r.string(o, "subGroup", p, ident),
        preemptable=r.boolean(o, "preemptable", p, ident),
        created=r.timestamp(o.get("createdAt"), join_pointer(p, "createdAt"), ident),
        nominated=r.string(o, "nominatedNode", p, ident),
        gated=bool(r.boolean(o, "gated", p, ident, default=False)),
        preemption_policy=r.string(o, "preemptionPolicy", p, ident),
        node_selector=r.str_map(o, "nodeSelector", p, ident),
        affinity=r.obj(o, "affinity", p, ident) or None,
        tolerations=tuple(tolerations),
        task_priority=r.integer(o, "taskPriority", p, ident),
        pointer=p,
        ident=ident,
    )
