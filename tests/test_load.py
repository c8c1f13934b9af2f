"""`make load` (bench/load.py): its statistics, the BENCHMARKS.md section it writes, and a
short real run (uvicorn on 127.0.0.1, token auth, every lane) that must see no error."""

from __future__ import annotations

import os

from bench.load import SECTION, main, percentile, rss_kib, thirds, write_section


def test_percentile_is_nearest_rank():
    xs = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert percentile(xs, 0.5) == 3.0
    assert percentile(xs, 0.99) == 5.0
    assert percentile(xs, 0.0) == 1.0
    assert percentile([7.0], 0.99) == 7.0
    assert percentile([float(i) for i in range(1, 101)], 0.99) == 99.0


def test_memory_thirds_compare_first_and_last_samples():
    assert thirds([100, 100, 100, 200, 200, 200, 300, 300, 300]) == ([100, 100, 100], [300, 300, 300])
    assert thirds([5]) == ([5], [5])
    assert rss_kib(os.getpid()) > 0
    assert rss_kib(2**22 + 12345) is None  # no such process


def test_load_section_replaces_itself_and_keeps_the_rest(tmp_path):
    f = tmp_path / "BENCHMARKS.md"
    f.write_text("# Benchmarks\n\n| a |\n\n## Notes\n\n* n\n")
    write_section(f, [SECTION, "", "first", ""])
    assert f.read_text() == "# Benchmarks\n\n| a |\n\n## Load\n\nfirst\n\n## Notes\n\n* n\n"
    write_section(f, [SECTION, "", "second", ""])
    text = f.read_text()
    assert text.count(SECTION) == 1 and "second" in text and "first" not in text and text.endswith("* n\n")
    g = tmp_path / "other.md"
    g.write_text("# Benchmarks\n\ntext\n")
    write_section(g, [SECTION, "", "x", ""])
    assert g.read_text() == "# Benchmarks\n\ntext\n\n## Load\n\nx\n"


def test_short_load_run_has_no_errors(tmp_path, capsys):
    out = tmp_path / "B.md"
    code = main(["--seconds", "3", "--warmup", "1", "--workers", "1", "--m-size", "S", "--small-clients", "1",
                 "--extender-clients", "1", "--extender-nodes", "32", "--extender-pods", "320",
                 "--extender-gang", "4", "--output", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert ", 0 errors.**" in printed
    for lane in ("decisions M", "decisions small", "extender filter", "extender prioritize", "hostile (4xx expected)", "livez"):
        row = next(line for line in printed.splitlines() if line.startswith(f"| {lane} |"))
        assert int(row.split("|")[2].replace(",", "")) > 0, row  # every lane was exercised
    assert out.read_text().startswith("# Benchmarks") and SECTION in out.read_text()
