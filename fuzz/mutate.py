"""Structured mutation fuzzing of whole decisions (``make fuzz-decide``; not part of ``make test``).

``make fuzz`` (atheris) mutates bytes and mostly exercises the readers; this one mutates
parsed request bodies and runs each through the whole decision, where the configuration,
the plugins and the actions read what the readers let through. Each input is a seed body
with one to three of its values replaced (by null, another type, an integer past 64 bits,
``1e308``, an empty or odd string, an empty list or object), deleted, or edited (a string
cut short, a number scaled or negated); it is decided as ``POST /v1/decisions`` would (as
``/v1/simulate`` when it has ``cycles``), under the request deadline. Every input must
give a decision or an :class:`app.errors.InputError` (a 4xx) whose pointer is a JSON
pointer; anything else is a crash, saved once per (exception, file, line) under the output
directory with its last frame.

Seeds: ``*.json`` files holding a request body (an atheris seed of ``fuzz/corpus`` after
its first byte), or ``{"body": ...}`` as :mod:`fuzz.record` writes them. What it found is kept in ``tests/test_fuzz_regressions.py``.

    python -m fuzz.mutate [--seconds S] [--inputs N] [--seed K] [--out DIR] [--under KEY] SEEDS...
"""

from __future__ import annotations

import argparse
import copy
import json
import pathlib
import random
import sys
import time
import traceback
from collections.abc import Iterator
from typing import Any

import orjson

from app.errors import InputError
from app.ingest.request import read_request
from app.service import decide_request
from app.settings import Settings
from app.simulate import simulate

SETTINGS = Settings()
#: what a value is replaced by
HOSTILE: tuple[Any, ...] = (
    None, -1, 0, 2**63, -(2**63) - 1, 2**64 - 1, 1e308, -0.5, True, False, "", " ", "x", "-1", "1e400", "NaN", "*", ",", ";",
    "a,a", "a" * 300, "100Gi", "0.0001m", "9223372036854775807", [], {}, [None], {"": None}, [1, "a", None], {"x": {"y": []}},
)  # fmt: skip
DEADLINE_MS = 20_000
MAX_SEED_BYTES = 200_000


def seeds(paths: list[str]) -> list[dict[str, Any]]:
    """The request bodies in ``paths`` (files or directories of ``*.json``), smallest first."""
    files: list[pathlib.Path] = []
    for p in map(pathlib.Path, paths):
        files += sorted(p.glob("*.json")) if p.is_dir() else [p]
    out = []
    for f in sorted(files, key=lambda f: (f.stat().st_size, f.name)):
        if f.stat().st_size > MAX_SEED_BYTES:
            continue
        data = f.read_bytes()
        try:  # (an atheris seed starts with its target's byte)
            raw = orjson.loads(data if data[:1] in (b"{", b"[") else data[1:])
        except orjson.JSONDecodeError:
            continue
        body = raw.get("body", raw) if isinstance(raw, dict) else None
        if isinstance(body, dict):
            out.append(body)
    return out


def _paths(value: Any, path: tuple = ()) -> Iterator[tuple]:
    if path:
        yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def mutate(body: dict[str, Any], rng: random.Random, under: str | None = None) -> dict[str, Any]:
    """A copy of ``body`` with one to three values replaced, deleted or edited (``under``:
    only values under that top-level key, e.g. ``config``)."""
    body = copy.deepcopy(body)
    for _ in range(rng.choice((1, 1, 2, 3))):
        paths = [p for p in _paths(body) if under is None or p[0] == under]
        if not paths:
            break
        path = rng.choice(paths)
        parent = body
        for step in path[:-1]:
            parent = parent[step]
        last, old = path[-1], parent[path[-1]]
        roll = rng.random()
        if roll < 0.15:
            del parent[last]
        elif roll < 0.25 and isinstance(old, str) and old:
            parent[last] = old[: rng.randrange(len(old))] + rng.choice(("", "x", "-", "/", "0", "*"))
        elif roll < 0.25 and type(old) in (int, float):
            parent[last] = rng.choice((old * 1000, -old, old + 1, 0))
        else:
            parent[last] = copy.deepcopy(rng.choice(HOSTILE))
    return body


def run(body: dict[str, Any]) -> None:
    """Decide ``body`` as its endpoint would (raises what the decision raises)."""
    options = body.get("options")
    if isinstance(options, dict):
        options.setdefault("deadlineMs", DEADLINE_MS)
    if "cycles" in body:
        simulate(body, SETTINGS)
    elif "variants" not in body:
        decide_request(read_request(body, SETTINGS)).wire()
    else:
        read_request(body, SETTINGS)


def fuzz(bodies: list[dict[str, Any]], *, inputs: int, seconds: float, seed: int,
         out: pathlib.Path | None = None, under: str | None = None) -> dict[tuple, str]:  # fmt: skip
    """Crashes found, by (exception, file, line) -> the input's JSON text (saved under
    ``out`` when given). ``under``: see :func:`mutate` (the bodies without that key are left out)."""
    if under is not None:
        bodies = [b for b in bodies if under in b]
    rng = random.Random(seed)
    crashes: dict[tuple, str] = {}
    end = time.monotonic() + seconds
    done = refused = 0
    for _ in range(inputs):
        if time.monotonic() > end or not bodies:
            break
        body = mutate(rng.choice(bodies), rng, under)
        text = json.dumps(body)  # (the standard library writes integers past 64 bits, which orjson refuses)
        done += 1
        try:
            run(body)
        except InputError as e:
            refused += 1
            if not isinstance(e.pointer, str) or (e.pointer and not e.pointer.startswith("/")):
                crashes.setdefault(("bad pointer", repr(e.pointer), 0), text)
        except Exception as e:  # noqa: BLE001 (every other exception is what this looks for)
            frame = traceback.extract_tb(e.__traceback__)[-1]
            key = (type(e).__name__, frame.filename, frame.lineno)
            if key not in crashes:
                crashes[key] = text
                print(f"crash: {type(e).__name__} at {frame.filename}:{frame.lineno}: {str(e)[:200]}", file=sys.stderr)
                if out is not None:
                    out.mkdir(parents=True, exist_ok=True)
                    name = f"{type(e).__name__}-{pathlib.Path(frame.filename).stem}-{frame.lineno}.json"
                    (out / name).write_text(text)
    print(f"{done} inputs: {done - refused} decided, {refused} refused (4xx), {len(crashes)} crash(es)", file=sys.stderr)
    return crashes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz.mutate", description=__doc__.split("\n\n")[0])
    ap.add_argument("seeds", nargs="+", help="files or directories of JSON request bodies")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--inputs", type=int, default=10**9)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=".fuzz/decide", help="where crashing inputs are saved")
    ap.add_argument("--under", help="mutate only values under this top-level key (e.g. config)")
    a = ap.parse_args(argv)
    bodies = seeds(a.seeds)
    print(f"{len(bodies)} seed bodies", file=sys.stderr)
    crashes = fuzz(bodies, inputs=a.inputs, seconds=a.seconds, seed=a.seed, out=pathlib.Path(a.out), under=a.under)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
