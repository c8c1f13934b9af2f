"""A decision as a picture: the HyperNode tree in SVG, coloured by occupancy, the decision on it.

The tree is drawn top-down: the virtual root on the first row, one row per HyperNode tier
below it (highest tier first) and the nodes on the last row. Every box is filled by the
occupancy of its nodes *before* the decision (allocated / allocatable of the GPUs where
the nodes have GPUs, else of the CPU) on a fixed six-step scale; the tooltip adds the
occupancy once the decision is applied (evictions freed, bindings and nominations placed).
Marks count the pods the decision binds (green ``B``), nominates (amber ``N``) and evicts
(red ``E``) on each node; the HyperNode each placed gang landed in is outlined (purple,
dashed), each of its sub-groups' too (purple, dotted), and each running gang's (grey).

Big clusters are capped so that the picture stays bounded in size and time:

* a HyperNode shows at most :data:`MAX_CHILDREN` children; the rest become one "+k more"
  box (aggregate colour and marks). Children with marks or a chosen domain are kept first.
* at most :data:`MAX_COLUMNS` columns (boxes on any row): while the tree is wider, whole
  HyperNodes are drawn as one aggregate box instead of their children, uninvolved ones
  before those carrying marks, lowest tier first.

Text comes from clients (node, pod and HyperNode names), so every string is XML-escaped
and characters XML 1.0 cannot carry are replaced. The output depends only on the request:
every list is sorted by stable keys and numbers are formatted exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from app.errors import unescape_pointer_token
from app.ingest.quantity import format_quantity
from app.model.cluster import Cluster
from app.model.resources import CPU

MAX_CHILDREN = 16
MAX_COLUMNS = 256
MAX_TOOLTIP_NAMES = 8
MAX_LABEL_CHARS = 12

#: Occupancy buckets: (legend label, fill, text colour). Bucket of used/alloc: 0 when
#: nothing is used, 5 when full (or over), else 1 + floor(4 * used / alloc).
BUCKETS: tuple[tuple[str, str, str], ...] = (
    ("0%", "#f7fbff", "#08306b"),
    ("<25%", "#c6dbef", "#08306b"),
    ("25-50%", "#9ecae1", "#08306b"),
    ("50-75%", "#6baed6", "#08306b"),
    ("75-100%", "#2171b5", "#ffffff"),
    ("full", "#08306b", "#ffffff"),
)
NO_CAPACITY = ("no capacity", "#e0e0e0", "#555555")
MARKS: tuple[tuple[str, str, str], ...] = (  # (kind, letter, colour), drawn in this order
    ("evicted", "E", "#d62728"),
    ("nominated", "N", "#f0a202"),
    ("bound", "B", "#2ca02c"),
)
DOMAIN_COLOUR = "#7b2cbf"
RUNNING_COLOUR = "#627d98"  # a running gang the decision did not place

COL_W = 88  # one column
BOX_W = 80
NODE_H = 46
HYPER_H = 40
ROW_H = 80
MARGIN = 16
LEGEND_H = 104
CHAR_W = 6.4  # rough width of one character at font-size 11, for layout only

_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_DIGITS = re.compile(r"(\d+)")


def esc(s: object) -> str:
    """Text or attribute value, XML-escaped (quotes too), with XML-illegal characters replaced."""
    return escape(_BAD_XML.sub("\ufffd", str(s)), {'"': "&quot;", "'": "&apos;"})


def natural_key(name: str) -> tuple[Any, ...]:
    """``node2`` before ``node10``; ties fall back to the plain string (a total order)."""
    parts = _DIGITS.split(name)
    return tuple((0, int(p), "") if i % 2 else (1, 0, p) for i, p in enumerate(parts)) + ((2, 0, name),)


def bucket(used: int, alloc: int) -> int:
    """The occupancy bucket (index into :data:`BUCKETS`), -1 without capacity."""
    if alloc <= 0:
        return -1
    if used <= 0:
        return 0
    if used >= alloc:
        return 5
    return 1 + (4 * used) // alloc


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


def _box_name(name: str) -> str:
    """A HyperNode's name as its box shows it: for one built from node labels (a Kueue or KAI
    ``Topology``: ``<topology>/<value>/<value>...``, no Kubernetes name has a ``/``), the
    value of its own level."""
    if "/" not in name:
        return name
    return unescape_pointer_token(name.rsplit("/", 1)[-1])


def _level_name(tier_name: str | None) -> str:
    """A tier's level as a box's second line: a label key's name part (``cloud.com/rack`` ->
    ``rack``, ``kubernetes.io/hostname`` -> ``hostname``), at most 12 characters; "" for none."""
    short = (tier_name or "").rsplit("/", 1)[-1]
    return short if 0 < len(short) <= 12 else ""


def _short(s: str, n: int = MAX_LABEL_CHARS) -> str:
    return s if len(s) <= n else s[: n - 1] + "\u2026"


def _count(n: int) -> str:
    return str(n) if n < 1000 else f"{n // 1000}k" if n < 1_000_000 else f"{n // 1_000_000}M"


@dataclass(slots=True)
class Box:
    kind: str  # "root" | "hypernode" | "node" | "more"
    name: str
    row: int
    nodes: np.ndarray  # node ids the box stands for
    hyper: int = -1
    collapsed: bool = False  # a HyperNode drawn as one box instead of its children
    hidden: list[str] = field(default_factory=list)  # names in a "more" box
    children: list[Box] = field(default_factory=list)
    x: float = 0.0  # centre
    y: float = 0.0  # top
    lo: float = 0.0  # subtree extent
    hi: float = 0.0
    bottom: float = 0.0


CHANGED_COLOUR = "#ff7f0e"  # a node whose marks differ from the base variant's (``/v1/render`` with variants)


class _Picture:
    def __init__(self, cluster: Cluster, used_before: np.ndarray, wire: dict[str, Any],
                 changed: np.ndarray | None = None, base: str = "") -> None:  # fmt: skip
        self.changed = changed  # per node: does the base variant ``base`` mark it otherwise
        self.base = base
        self.c = cluster
        self.topo = cluster.topology
        self.wire = wire
        names = cluster.resources.names
        gpu = [i for i, n in enumerate(names) if n == "nvidia.com/gpu" or n.endswith("/gpu")]
        self.gpu_name = names[gpu[0]] if len(gpu) == 1 else "gpu"
        cpu = cluster.resources.index[CPU]
        alloc = cluster.allocatable
        after = used_before.copy()
        n = len(cluster.nodes)
        self.marks = {k: np.zeros(n, dtype=np.int64) for k, _, _ in MARKS}
        self.pods: dict[int, list[tuple[str, str]]] = {}
        tasks = cluster.task_index
        for kind, key, sign in (("evicted", "evictions", -1), ("bound", "bindings", 1), ("nominated", "nominations", 1)):
            for item in wire[key]:
                node = cluster.node_index.get(item["node"])
                if node is None:
                    continue
                self.marks[kind][node] += 1
                self.pods.setdefault(node, []).append((kind, item["pod"]))
                t = tasks.get(item["pod"])
                if t is not None and t.req is not None:
                    after[node] += sign * t.req
        np.maximum(after, 0, out=after)
        cols = np.asarray(gpu, dtype=np.intp)
        self.g_alloc = alloc[:, cols].sum(axis=1) if gpu else np.zeros(n, dtype=np.int64)
        self.g_used = used_before[:, cols].sum(axis=1) if gpu else np.zeros(n, dtype=np.int64)
        self.g_after = after[:, cols].sum(axis=1) if gpu else np.zeros(n, dtype=np.int64)
        self.c_alloc, self.c_used, self.c_after = alloc[:, cpu], used_before[:, cpu], after[:, cpu]
        self.marked = np.zeros(n, dtype=bool) if changed is None else changed.copy()  # changed nodes stay in view
        for arr in self.marks.values():
            self.marked |= arr > 0
        self._domains()
        self._involvement()

    # -- what the decision touched --------------------------------------------------------
    def _domains(self) -> None:
        """The HyperNodes to outline: each placed gang's (``domains``), each sub-group's of a
        placed gang (``subdomains``, labelled with the sub-group's id) and each running gang's
        that the decision did not place (``running``: jobs of two or more pods, minimum two)."""
        placed = {b["job"] for b in self.wire["bindings"]} | {b["job"] for b in self.wire["nominations"]}
        topo = self.topo
        self.domains: dict[int, list[str]] = {}
        self.subdomains: dict[int, list[str]] = {}
        self.running: dict[int, list[str]] = {}
        for j in self.wire["jobs"]:
            h = topo.index.get(j["hyperNode"]) if j["hyperNode"] else None
            if h is None or h == topo.root:
                continue
            if j["job"] in placed:
                self.domains.setdefault(h, []).append(j["job"])
                job = self.c.jobs.get(j["job"])
                for name, sg in sorted(job.subgroups.items()) if job is not None and len(job.subgroups) > 1 else ():
                    nodes = sorted({t.node for t in sg.tasks if t.node >= 0})
                    sh = topo.smallest_containing(nodes) if nodes else -1
                    if sh >= 0 and sh != h:
                        self.subdomains.setdefault(sh, []).append(name)
            elif j["state"] == "Running":
                job = self.c.jobs.get(j["job"])
                if job is not None and len(job.tasks) >= 2 and job.min_available >= 2:
                    self.running.setdefault(h, []).append(j["job"])

    def _involvement(self) -> None:
        """HyperNodes holding a marked node or a domain (and their ancestors): kept first."""
        topo = self.topo
        inv = set()
        marked = np.flatnonzero(self.marked)
        for tier in topo.tiers[:-1]:
            ids = topo.anc[tier][marked]
            inv.update(int(i) for i in np.unique(ids[ids >= 0]))
        for h in list(self.domains) + list(self.subdomains):
            while h >= 0:
                inv.add(h)
                h = topo.parent[h]
        inv.add(topo.root)
        self.involved = inv

    # -- the capped tree ------------------------------------------------------------------
    def build(self) -> Box:
        topo = self.topo
        tiers_desc = sorted(topo.tiers, reverse=True)
        self.row_of_tier = {t: i for i, t in enumerate(tiers_desc)}
        self.node_row = len(tiers_desc)
        direct: dict[int, list[int]] = {}
        for node, h in enumerate(topo.node_hypernode.tolist()):
            direct.setdefault(h, []).append(node)
        node_names = [nd.name for nd in self.c.nodes]
        # per HyperNode: kept items in display order and the rest (a "more" box)
        self.items: dict[int, tuple[list[tuple[str, int]], list[tuple[str, int]]]] = {}

        def name(it: tuple[str, int]) -> str:
            return topo.names[it[1]] if it[0] == "h" else node_names[it[1]]

        def involved(it: tuple[str, int]) -> bool:
            return it[1] in self.involved if it[0] == "h" else bool(self.marked[it[1]])

        reach = [topo.root]
        i = 0
        while i < len(reach):
            h = reach[i]
            i += 1
            items = [("h", c) for c in topo.child_ids[h]] + [("n", nd) for nd in direct.get(h, ())]
            items.sort(key=lambda it: (it[0], natural_key(name(it))))
            rest: list[tuple[str, int]] = []
            if len(items) > MAX_CHILDREN:
                ranked = sorted(items, key=lambda it: (not involved(it), it[0], natural_key(name(it))))
                keep = set(ranked[: MAX_CHILDREN - 1])
                rest = [it for it in items if it not in keep]
                items = [it for it in items if it in keep]
            self.items[h] = (items, rest)
            reach.extend(c for kind, c in items if kind == "h")
        self.node_names = node_names
        self.item_name = name
        # the column cap: collapse whole HyperNodes until the tree fits
        collapsed: set[int] = set()
        order = sorted(
            {(h in self.involved, topo.tier[h]) for h in self.items if h != topo.root}
        )  # uninvolved first, lowest tier first
        for inv, tier in order:
            if self._width(topo.root, collapsed) <= MAX_COLUMNS:
                break
            collapsed.update(h for h in self.items if h != topo.root and topo.tier[h] == tier
                             and (h in self.involved) == inv)  # fmt: skip
        self.collapsed = collapsed
        self.hidden_hyper: dict[int, Box] = {}
        self.hyper_box: dict[int, Box] = {}
        return self._box(topo.root)

    def _width(self, h: int, collapsed: set[int]) -> int:
        if h in collapsed:
            return 1
        items, rest = self.items[h]
        w = sum(self._width(c, collapsed) if k == "h" else 1 for k, c in items) + (1 if rest else 0)
        return max(w, 1)

    def _box(self, h: int) -> Box:
        topo = self.topo
        box = Box("root" if h == topo.root else "hypernode", topo.names[h], self.row_of_tier[topo.tier[h]],
                  topo.leaves[h], hyper=h)  # fmt: skip
        self.hyper_box[h] = box
        if h in self.collapsed:
            box.collapsed = True
            return box
        items, rest = self.items[h]
        for kind, i in items:
            if kind == "h":
                box.children.append(self._box(i))
            else:
                box.children.append(Box("node", self.node_names[i], self.node_row, np.array([i], dtype=np.intp)))
        if rest:
            parts = [self.topo.leaves[i] if k == "h" else np.array([i], dtype=np.intp) for k, i in rest]
            rows = [self.row_of_tier[topo.tier[i]] if k == "h" else self.node_row for k, i in rest]
            more = Box("more", f"+{len(rest)} more", min(rows), np.sort(np.concatenate(parts)))
            more.hidden = [self.item_name(it) for it in rest]
            for k, i in rest:
                if k == "h":
                    for d in topo.descendants(i):
                        self.hidden_hyper[d] = more
            box.children.append(more)
        return box

    # -- layout ---------------------------------------------------------------------------
    def layout(self, root: Box) -> int:
        col = 0

        def place(b: Box) -> None:
            nonlocal col
            b.y = LEGEND_H + MARGIN + b.row * ROW_H
            h = NODE_H if b.kind == "node" or b.kind == "more" else HYPER_H
            if not b.children:
                b.x = MARGIN + col * COL_W + COL_W / 2
                col += 1
                b.lo, b.hi, b.bottom = b.x - BOX_W / 2, b.x + BOX_W / 2, b.y + h
                return
            for ch in b.children:
                place(ch)
            b.x = (b.children[0].x + b.children[-1].x) / 2
            b.lo = min(b.x - BOX_W / 2, b.children[0].lo)
            b.hi = max(b.x + BOX_W / 2, b.children[-1].hi)
            b.bottom = max(ch.bottom for ch in b.children)

        place(root)
        return col

    # -- drawing --------------------------------------------------------------------------
    def occupancy(self, nodes: np.ndarray) -> tuple[str, int, int, int]:
        """(resource, used, allocatable, used after the decision) over ``nodes``."""
        ga = int(self.g_alloc[nodes].sum())
        if ga > 0:
            return self.gpu_name, int(self.g_used[nodes].sum()), ga, int(self.g_after[nodes].sum())
        return CPU, int(self.c_used[nodes].sum()), int(self.c_alloc[nodes].sum()), int(self.c_after[nodes].sum())

    def draw_changed(self, b: Box) -> list[str]:
        """An orange frame around a box holding a node the base variant marks otherwise."""
        if self.changed is None:
            return []
        n = int(self.changed[b.nodes].sum()) if b.kind in ("node", "more") else 0
        if not n:
            return []
        x0, y0 = b.x - BOX_W / 2 - 3, b.y - 3
        tip = f"{n} node{'s' if n > 1 else ''} marked otherwise in {self.base}"
        return [f'<rect class="changed" data-name="{esc(b.name)}" data-changed="{n}" x="{_num(x0)}" y="{_num(y0)}" '
                f'width="{BOX_W + 6}" height="{NODE_H + 6}" rx="6" fill="none" stroke="{CHANGED_COLOUR}" '
                f'stroke-width="3"><title>{esc(tip)}</title></rect>']

    def draw(self) -> str:
        root = self.build()
        columns = self.layout(root)
        boxes: list[Box] = []
        stack = [root]
        while stack:
            b = stack.pop()
            boxes.append(b)
            stack.extend(reversed(b.children))
        height = int(max(b.bottom for b in boxes) + MARGIN + 14)
        legend, legend_w = self.legend(boxes)
        width = int(max(MARGIN * 2 + columns * COL_W, legend_w))
        topo = self.topo
        title = f"Gangplank decision: {len(self.c.nodes)} nodes, {len(topo.names) - 1} HyperNodes"
        out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Verdana, Arial, sans-serif" '
            f'font-size="11" role="img" aria-label="{esc(title)}" data-columns="{columns}">',
            f"<title>{esc(title)}</title>",
            f'<rect class="background" x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        ]
        out += legend
        out += self.draw_domains()
        out.append('<g class="edges" fill="none" stroke="#9aa5b1" stroke-width="1">')
        for b in boxes:
            for ch in b.children:
                y0 = b.y + HYPER_H
                mid = y0 + (ROW_H - HYPER_H) / 2
                out.append(f'<path d="M{_num(b.x)} {_num(y0)}V{_num(mid)}H{_num(ch.x)}V{_num(ch.y)}"/>')
        out.append("</g>")
        for b in boxes:
            out += self.draw_box(b)
        for b in boxes:
            out += self.draw_changed(b)
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def draw_domains(self) -> list[str]:
        """Outlines, widest first: running gangs (grey), placed gangs (purple, dashed), their
        sub-groups (purple, dotted)."""
        return (self._outlines(self.running, "running", RUNNING_COLOUR, "1.5", "2 3", 10)
                + self._outlines(self.domains, "domain", DOMAIN_COLOUR, "2.5", "7 4", 6)
                + self._outlines(self.subdomains, "subgroup", DOMAIN_COLOUR, "1.5", "2 2", 3))  # fmt: skip

    def _outlines(self, domains: dict[int, list[str]], cls: str, colour: str, width: str, dash: str,
                  pad: int) -> list[str]:  # fmt: skip
        """One outline per box holding one of ``domains`` (its subtree's extent)."""
        topo = self.topo
        where: dict[int, tuple[Box, list[str], list[str]]] = {}
        for h in sorted(domains, key=lambda h: topo.names[h]):
            box = None
            a = h
            while a >= 0 and box is None:  # the domain itself, or what hides it
                if a in self.hidden_hyper:
                    box = self.hidden_hyper[a]
                elif a in self.hyper_box and (a == h or self.hyper_box[a].collapsed):
                    box = self.hyper_box[a]
                a = topo.parent[a]
            if box is None:
                continue
            entry = where.setdefault(id(box), (box, [], []))
            entry[1].append(topo.names[h])
            entry[2].extend(domains[h])
        out = []
        what = {"domain": "domain", "subgroup": "sub-group domain", "running": "running gang"}[cls]
        for box, hypers, jobs in sorted(where.values(), key=lambda e: (e[0].lo, e[0].y, e[1])):
            x, y = box.lo - pad, box.y - pad
            w, h = box.hi - box.lo + 2 * pad, box.bottom - box.y + 2 * pad
            jobs = sorted(jobs)
            tip = f"{what} {', '.join(hypers)}: " + ", ".join(jobs)
            out.append(
                f'<g class="{cls}" data-hypernode="{esc(",".join(hypers))}" data-jobs="{esc(",".join(jobs))}">'
                f"<title>{esc(tip)}</title>"
                f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" rx="8" fill="{colour}" '
                f'fill-opacity="0.04" stroke="{colour}" stroke-width="{width}" stroke-dasharray="{dash}"/>'
                f'<text x="{_num(x + 4)}" y="{_num(y - 4)}" fill="{colour}" font-size="10">'
                f"{esc(_short(', '.join(jobs), max(12, int(w / 6))))}</text></g>"
            )
        return out

    def draw_box(self, b: Box) -> list[str]:
        res, used, alloc, after = self.occupancy(b.nodes)
        k = bucket(used, alloc)
        label, fill, ink = BUCKETS[k] if k >= 0 else NO_CAPACITY
        h = NODE_H if b.kind in ("node", "more") else HYPER_H
        x0, y0 = b.x - BOX_W / 2, b.y
        pct = f"{(100 * used) // alloc}%" if alloc > 0 else "n/a"
        counts = {kind: int(self.marks[kind][b.nodes].sum()) for kind, _, _ in MARKS}
        tip = [b.name if b.kind != "more" else f"{len(b.hidden)} more: " + ", ".join(
            b.hidden[:MAX_TOOLTIP_NAMES]) + (", \u2026" if len(b.hidden) > MAX_TOOLTIP_NAMES else "")]  # fmt: skip
        q = lambda v: format_quantity(res if res != "gpu" else "nvidia.com/gpu", v)  # noqa: E731
        tip.append(f"{res} {q(used)}/{q(alloc)} allocated ({pct}); after the decision {q(after)}/{q(alloc)}")
        attrs = f'class="{b.kind}" data-name="{esc(b.name)}" data-bucket="{k}" data-resource="{esc(res)}" ' \
                f'data-used="{used}" data-allocatable="{alloc}" data-nodes="{len(b.nodes)}"'  # fmt: skip
        dashed = ""
        if b.kind == "node":
            nd = self.c.nodes[int(b.nodes[0])]
            if not nd.ready or nd.unschedulable:
                dashed = ' stroke-dasharray="4 3"'
                tip.append("not ready" if not nd.ready else "unschedulable")
            pods = sorted(self.pods.get(int(b.nodes[0]), ()), key=lambda p: ([m[0] for m in MARKS].index(p[0]), p[1]))
            for kind, pod in pods[:MAX_TOOLTIP_NAMES]:
                tip.append(f"{kind}: {pod}")
            if len(pods) > MAX_TOOLTIP_NAMES:
                tip.append(f"\u2026 and {len(pods) - MAX_TOOLTIP_NAMES} more pods")
        elif b.kind in ("hypernode", "root"):
            t = self.topo.tier[b.hyper]
            attrs += f' data-tier="{t}"'
            if b.collapsed:
                attrs += ' data-collapsed="true"'
        else:
            attrs += f' data-hidden="{len(b.hidden)}"'
        if b.kind != "node" and (b.collapsed or b.kind == "more"):
            tip.append(f"{len(b.nodes)} nodes; marks: " + ", ".join(f"{counts[m]} {m}" for m, _, _ in MARKS))
        change = f"{pct} \u2192 {(100 * after) // alloc}%" if alloc > 0 and after != used else pct
        label1 = "cluster" if b.kind == "root" else _box_name(b.name)
        if b.kind == "hypernode" and not b.collapsed or b.kind == "root":
            level = _level_name(self.topo.tier_name[b.hyper])
            line2 = f"{level or 'tier ' + str(self.topo.tier[b.hyper])} \u00b7 {pct}"
        elif b.kind == "node":
            line2 = change
        else:
            line2 = f"{_count(len(b.nodes))} nodes \u00b7 {pct}"
        stroke = "#334e68" if b.kind != "more" else "#829ab1"
        out = [
            f"<g {attrs}>",
            f"<title>{esc(chr(10).join(tip))}</title>",
            f'<rect x="{_num(x0)}" y="{_num(y0)}" width="{BOX_W}" height="{h}" rx="4" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="1"{dashed}/>',
            f'<text x="{_num(b.x)}" y="{_num(y0 + 14)}" text-anchor="middle" fill="{ink}" font-weight="bold">'
            f"{esc(_short(label1))}</text>",
            f'<text x="{_num(b.x)}" y="{_num(y0 + 27)}" text-anchor="middle" fill="{ink}" font-size="10">'
            f"{esc(line2)}</text>",
        ]
        if b.kind != "node" and not b.collapsed and b.kind != "more":
            out.append("</g>")  # an expanded HyperNode: its children carry the marks
            return out
        mx = x0 + 3
        for kind, letter, colour in MARKS:
            n = counts[kind]
            if not n:
                continue
            text = f"{letter}{_count(n)}"
            w = 6 + 6.5 * len(text)
            out.append(
                f'<g class="mark-{kind}" data-count="{n}"><rect x="{_num(mx)}" y="{_num(y0 + h - 15)}" '
                f'width="{_num(w)}" height="12" rx="3" fill="{colour}"/><text x="{_num(mx + w / 2)}" '
                f'y="{_num(y0 + h - 6)}" text-anchor="middle" fill="#ffffff" font-size="9" font-weight="bold">'
                f"{text}</text></g>"
            )
            mx += w + 2
        out.append("</g>")
        return out

    def legend(self, boxes: list[Box]) -> tuple[list[str], float]:
        w = self.wire
        y = MARGIN
        head = (f"{len(w['bindings'])} bound, {len(w['nominations'])} nominated, {len(w['evictions'])} evicted"
                + (" (truncated by the deadline)" if w.get("truncated") else ""))  # fmt: skip
        out = ['<g class="legend">',
               f'<text x="{MARGIN}" y="{y + 11}" font-size="13" font-weight="bold">{esc(head)}</text>']  # fmt: skip
        y += 22
        text = f"occupancy before the decision ({self.gpu_name} where a node has GPUs, else cpu):"
        out.append(f'<text x="{MARGIN}" y="{y + 11}">{esc(text)}</text>')
        x = MARGIN + len(text) * CHAR_W + 8
        for i, (label, fill, _) in enumerate((*BUCKETS, NO_CAPACITY)):
            k = i if i < len(BUCKETS) else -1
            out.append(f'<g class="swatch" data-bucket="{k}"><rect x="{_num(x)}" y="{y}" width="14" height="14" '
                       f'fill="{fill}" stroke="#334e68" stroke-width="0.5"/>'
                       f'<text x="{_num(x + 18)}" y="{y + 11}">{esc(label)}</text></g>')  # fmt: skip
            x += 18 + len(label) * CHAR_W + 12
        width = x
        y += 24
        x = MARGIN
        for kind, letter, colour in MARKS:
            label = f"{kind} pods"
            out.append(f'<rect x="{x}" y="{y + 1}" width="18" height="12" rx="3" fill="{colour}"/>'
                       f'<text x="{x + 9}" y="{y + 10}" text-anchor="middle" fill="#ffffff" font-size="9" '
                       f'font-weight="bold">{letter}</text><text x="{x + 24}" y="{y + 11}">{label}</text>')  # fmt: skip
            x += int(24 + len(label) * CHAR_W + 14)
        out.append(f'<rect x="{x}" y="{y}" width="22" height="14" rx="3" fill="{DOMAIN_COLOUR}" fill-opacity="0.06" '
                   f'stroke="{DOMAIN_COLOUR}" stroke-width="2" stroke-dasharray="5 3"/>'
                   f'<text x="{x + 28}" y="{y + 11}">HyperNode a placed gang landed in</text>')  # fmt: skip
        x += int(28 + 34 * CHAR_W + 14)
        out.append(f'<rect x="{x}" y="{y}" width="22" height="14" rx="3" fill="{RUNNING_COLOUR}" fill-opacity="0.04" '
                   f'stroke="{RUNNING_COLOUR}" stroke-width="1.5" stroke-dasharray="2 3"/>'
                   f'<text x="{x + 28}" y="{y + 11}">a running gang</text>')  # fmt: skip
        x += int(28 + 14 * CHAR_W + 14)
        out.append(f'<rect x="{x}" y="{y}" width="22" height="14" rx="3" fill="#ffffff" stroke="#334e68" '
                   f'stroke-dasharray="4 3"/><text x="{x + 28}" y="{y + 11}">node not ready or unschedulable</text>')
        width = max(width, x + 28 + 32 * CHAR_W)
        y += 24
        aggregated = sum(len(b.nodes) for b in boxes if b.kind == "more" or b.collapsed)
        cap = (f"caps: {MAX_CHILDREN} children per HyperNode (the rest as \u201c+k more\u201d), {MAX_COLUMNS} columns; "
               f"{aggregated} nodes drawn in aggregate boxes")  # fmt: skip
        out.append(f'<text x="{MARGIN}" y="{y + 11}" fill="#52606d" class="caps" data-aggregated="{aggregated}">'
                   f"{esc(cap)}</text>")
        out.append("</g>")
        return out, width + MARGIN


def render_svg(cluster: Cluster, used_before: np.ndarray, wire: dict[str, Any], changed: np.ndarray | None = None,
               base: str = "") -> str:  # fmt: skip
    """The picture of ``wire`` (a decision's wire form) on ``cluster``, whose node usage
    before the decision is ``used_before`` (a copy of ``cluster.used`` taken before it);
    ``changed`` (per node), the nodes the variant ``base`` marks otherwise, framed."""
    return _Picture(cluster, used_before, wire, changed, base).draw()


_SIZE = re.compile(r'^<svg xmlns="http://www.w3.org/2000/svg" width="(\d+)" height="(\d+)" ')
HEADING_H = 28


def side_by_side(pictures: list[tuple[str, str]]) -> str:
    """Pictures (name, SVG document from :func:`render_svg`) in one SVG, left to right, each
    under its name."""
    parts, x, height = [], 0, 0
    for name, svg in pictures:
        m = _SIZE.match(svg)
        if m is None:  # pragma: no cover - render_svg always writes this head
            raise ValueError("not a picture of render_svg")
        w, h = int(m.group(1)), int(m.group(2))
        parts.append(f'<text class="variant" x="{x + MARGIN}" y="19" font-size="15" font-weight="bold">{esc(name)}</text>')
        parts.append(f'<svg x="{x}" y="{HEADING_H}" ' + svg[len('<svg xmlns="http://www.w3.org/2000/svg" '):].rstrip("\n"))
        x += w + MARGIN
        height = max(height, h)
    width, height = max(x - MARGIN, 1), height + HEADING_H
    title = "Gangplank: " + " | ".join(name for name, _ in pictures)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'font-family="DejaVu Sans, Verdana, Arial, sans-serif" font-size="11" role="img" aria-label="{esc(title)}">')  # fmt: skip
    return "\n".join([head, f"<title>{esc(title)}</title>", f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
                      *parts, "</svg>"]) + "\n"  # fmt: skip
