"""The bench's heuristic-against-the-optimum section (``bench/run.py``): the table rows, the
summary line of the further seeds, and what counts as missing the top level."""

from __future__ import annotations

from typing import Any

from bench.run import quality_section, top_missed


def run(case: str, order: str, heuristic: dict[int, float], exact: dict[int, float], more: bool) -> dict[str, Any]:
    h, e = sum(heuristic.values()), sum(exact.values())
    side = lambda levels, total: {"priorityWeighted": total, "byPriority": levels, "gangsBroken": 1, "seconds": 0.5}  # noqa: E731
    return {"case": case, "order": order, "heuristic": side(heuristic, h), "exact": side(exact, e),
            "ratio": h / e, "gap": 0.0, "more": more}  # fmt: skip


def test_top_level_missed_only_in_priority_order_at_the_highest_level_either_breaks() -> None:
    assert top_missed(run("x", "priority", {500: 120.0, 100: 10.0}, {500: 100.0, 100: 40.0}, False))
    assert not top_missed(run("x", "priority", {500: 100.0, 100: 40.0}, {500: 100.0, 100: 10.0}, False))
    assert not top_missed(run("x", "cost", {500: 120.0}, {500: 100.0}, False))
    assert top_missed(run("x", "priority", {1000: 8.0, 100: 10.0}, {100: 40.0}, False))  # a level only it breaks


def test_further_seeds_are_one_summary_line_not_rows() -> None:
    quality = [run("S contiguous, seed 1, 300-pod gang", "priority", {100: 10.0}, {100: 10.0}, False),
               run("S contiguous, seed 5, 300-pod gang", "priority", {500: 110.0}, {500: 100.0}, True),
               run("S contiguous, seed 5, 300-pod gang", "cost", {500: 100.0}, {500: 100.0}, True)]  # fmt: skip
    text = "\n".join(quality_section(quality))
    assert text.count("| S contiguous, seed") == 1
    assert "2 runs, both victim orders): heuristic / optimum at most **1.100** (median 1.050), optimal on 1 of 2" in text
    assert "the top level missed on 1 of the 1 `priority` runs" in text
