"""Small PNG plots for BENCHMARKS.md: the scaling curve and disruption by method."""

from __future__ import annotations

import pathlib
from typing import Any

def draw(scaling: list[tuple[int, dict[str, Any]]], comparisons: list[dict[str, Any]], out: pathlib.Path) -> dict[str, str]:
    """Writes the plots under ``out``; returns {name: path relative to the repository root}.

    ``scaling`` is (nodes, measurement) of the same allocate case at each size.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}
    if scaling:
        xs = [n for n, _ in scaling]
        fig, ax = plt.subplots(figsize=(5, 3), dpi=80)
        for key, label in (("total_ms", "decision (parse+ingest+decide+serialise)"), ("ingest_ms", "ingest"),
                           ("decide_ms", "decide"), ("orjson_ms", "orjson.loads")):  # fmt: skip
            ax.plot(xs, [r[key] for _, r in scaling], marker="o", label=label)
        ax.set_xlabel("nodes (pods = 10 x nodes)")
        ax.set_ylabel("ms (median)")
        ax.set_title("Allocate a 3,000-pod gang: time by cluster size", fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / "bench-scaling.png")
        plt.close(fig)
        written["scaling"] = "docs/bench-scaling.png"
    if comparisons:
        metrics = (("gangsBroken", "gangs\nbroken"), ("podsEvicted", "pods\nevicted"), ("gpusDestroyed", "GPUs\ndestroyed"),
                   ("priorityWeighted", "priority-\nweighted"))  # fmt: skip
        fig, axes = plt.subplots(1, len(comparisons), figsize=(4.2 * len(comparisons), 3), dpi=80, squeeze=False)
        for ax, c in zip(axes[0], comparisons, strict=True):
            width = 0.38
            for k, (label, key) in enumerate((("gang-aware", "gang"), ("legacy", "legacy"))):
                # each metric relative to the larger of the two methods, the raw value on the bar
                vals = [c[key][m] / max(c["gang"][m], c["legacy"][m], 1e-9) for m, _ in metrics]
                xs = [i + (k - 0.5) * width for i in range(len(metrics))]
                ax.bar(xs, vals, width, label=label)
                for x, v, (m, _) in zip(xs, vals, metrics, strict=True):
                    ax.text(x, v + 0.02, f"{c[key][m]:.0f}", ha="center", fontsize=6)
            ax.set_xticks(range(len(metrics)), [name for _, name in metrics], fontsize=7)
            ax.set_ylim(0, 1.2)
            ax.set_ylabel("relative (larger = 1)", fontsize=7)
            ax.set_title(c["case"], fontsize=9)
            ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        fig.savefig(out / "bench-disruption.png")
        plt.close(fig)
        written["disruption"] = "docs/bench-disruption.png"
    return written
