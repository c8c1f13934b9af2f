"""The page at ``/`` in a real browser: Debian's Chromium, headless, driven by Playwright.

A uvicorn subprocess serves the app on a free loopback port. The browser loads the page,
loads the bundled example, decides, and the test reads the decision table and takes a
screenshot of the picture whose pixels must show the occupancy colours and the marks.

CI sets ``GANGPLANK_REQUIRE_BROWSER=1`` (``.ci/run`` installs Chromium first): there a
missing browser fails these tests; elsewhere they are skipped without one.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from app.render.svg import BUCKETS, MARKS

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


def _missing() -> str | None:
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is not installed (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    why = _missing()
    if why:
        if os.environ.get("GANGPLANK_REQUIRE_BROWSER") == "1":
            pytest.fail(f"GANGPLANK_REQUIRE_BROWSER=1 but {why}")
        pytest.skip(why)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GANGPLANK_AUTH", "GANGPLANK_SSL"))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # up to ~30 s for the app to import
            if proc.poll() is not None:
                raise RuntimeError(f"uvicorn exited: {proc.stderr.read().decode(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(base + "/livez", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("uvicorn did not become ready")
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser(server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")  # a fresh --user-data-dir
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport={"width": 1400, "height": 1000}, device_scale_factor=1,
        )  # fmt: skip
        try:
            yield ctx
        finally:
            ctx.close()


@pytest.fixture()
def page(browser: Any, server: str) -> Iterator[Any]:
    pg = browser.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.goto(server + "/")
    yield pg
    pg.close()
    # no script error, no CSP violation, no missing file; a 422 is the error test's own answer
    assert not [e for e in errors if "status of 422" not in e], errors


def table(pg: Any, selector: str) -> list[list[str]]:
    return pg.eval_on_selector_all(f"{selector} tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")


def rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def wait_value(page: Any, selector: str, ok: Any, timeout: float = 20.0) -> None:
    """Poll an input's value from the test side (the page's CSP forbids the string
    evaluation ``wait_for_function`` falls back to when it has to poll)."""
    end = time.monotonic() + timeout
    while not ok(page.input_value(selector)):
        if time.monotonic() > end:
            raise AssertionError(f"{selector} did not get the expected value within {timeout}s")
        time.sleep(0.02)


def count_near(pixels: np.ndarray, colour: tuple[int, int, int], tol: int = 3) -> int:
    """Pixels (an ``(n, 3)`` array) within ``tol`` of ``colour`` on every channel."""
    return int((np.abs(pixels - np.array(colour)) <= tol).all(axis=1).sum())


def test_load_example_and_decide_shows_the_picture_and_the_bound_pods(page: Any, tmp_path: pathlib.Path):
    from PIL import Image

    page.click("#load-example")
    wait_value(page, "#snapshot", lambda v: len(v) > 1000)
    page.click("#decide")
    page.wait_for_selector("#picture svg g.node", state="attached")
    page.wait_for_selector("#result", state="visible")
    rows = table(page, "#decision")
    assert [r[:4] for r in rows] == [
        ["bind", "ml/train-b-worker-0", "node4", "ml/train-b"],
        ["bind", "ml/train-b-worker-1", "node5", "ml/train-b"],
    ]
    assert rows[0][4].startswith("Bound in s2")
    assert ["ml/train-b", "Bound", "s2"] == table(page, "#jobs")[1][:3]
    assert page.eval_on_selector_all("#picture svg g.node", "gs => gs.length") == 8
    assert page.text_content("#summary").startswith("2 to bind, 0 to nominate, 0 to evict")

    svg = page.query_selector("#picture svg")
    width, height = int(svg.get_attribute("width")), int(svg.get_attribute("height"))
    shot = tmp_path / "picture.png"
    svg.screenshot(path=str(shot))
    img = Image.open(io.BytesIO(shot.read_bytes()))
    img.load()  # decodes the whole PNG
    assert img.format == "PNG"
    assert abs(img.size[0] - width) <= 1 and abs(img.size[1] - height) <= 1  # the box may start mid-pixel
    pixels = np.asarray(img.convert("RGB"), dtype=np.int16).reshape(-1, 3)
    box = 80 * 46
    # node0..node3 run train-a (full, darkest blue); node4..node7 are idle (lightest)
    assert count_near(pixels, rgb(BUCKETS[5][1])) > 4 * box // 2
    assert count_near(pixels, rgb(BUCKETS[0][1])) > 4 * box // 2
    bound = dict((k, c) for k, _, c in MARKS)["bound"]
    assert count_near(pixels, rgb(bound), tol=8) > 2 * 40  # two green "B1" marks
    assert count_near(pixels, rgb("#7b2cbf"), tol=30) > 100  # the purple domain outline
    assert len(np.unique(pixels, axis=0)) > 50  # text, edges and fills: not a blank image
    white = count_near(pixels, (255, 255, 255), tol=0)
    assert white < 0.9 * len(pixels)


def test_uploaded_yaml_decides_the_same(page: Any):
    page.set_input_files("#file", str(ROOT / "examples" / "volcano-small.yaml"))
    wait_value(page, "#snapshot", lambda v: "apiVersion:" in v)
    page.click("#decide")
    page.wait_for_selector("#result", state="visible")
    assert [r[2] for r in table(page, "#decision")] == ["node4", "node5"]


def test_a_bad_request_shows_the_problem_with_its_pointer(page: Any):
    bad = '{"objects": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"},' \
          ' "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "ghost"}}}]}}]}'  # fmt: skip
    page.fill("#snapshot", bad)
    page.click("#decide")
    page.wait_for_selector("#error", state="visible")
    text = page.text_content("#error")
    assert "422" in text and "/objects/0/spec/containers/0/resources/requests/cpu" in text and "ghost" in text
    assert page.is_hidden("#result")


def test_a_request_with_variants_shows_them_side_by_side_and_what_changes(page: Any):
    from tests.test_compare import ALLOCATE, PREEMPT, preemption_case
    from tests.kube import request

    body = {**request(preemption_case()), "variants": [{"name": "now", "config": ALLOCATE}, {"name": "proposed", "config": PREEMPT}]}
    page.fill("#snapshot", json.dumps(body))
    page.click("#decide")
    page.wait_for_selector("#result", state="visible")
    assert page.eval_on_selector_all("#picture svg text.variant", "ts => ts.map(t => t.textContent)") == ["now", "proposed"]
    assert page.eval_on_selector_all("#picture svg rect.changed", "rs => rs.map(r => r.getAttribute('data-name'))") == ["n1"]
    rows = table(page, "#decision")
    assert ["proposed", "default/low-0", "n1", "default/low"] in [r[:4] for r in rows]
    assert page.text_content("#summary").startswith("now: 0 bound, 0 nominated, 0 evicted, 0 gangs broken | proposed:")
