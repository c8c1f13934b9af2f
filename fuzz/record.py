"""A pytest plugin that records the request bodies the tests decide, as seeds for
:mod:`fuzz.mutate` (``make fuzz-decide`` runs the tests with it once):

    python -m pytest -p fuzz.record tests/...

Every envelope given to ``read_request`` is written to ``$FUZZ_BODIES`` (default
``.fuzz/bodies``) as ``{"body": ...}``, one file per distinct body (named by its hash).
The tests that watch what the service writes (``test_hardening``) fail under it."""

from __future__ import annotations

import hashlib
import os
import pathlib
from typing import Any

import orjson

import app.ingest.request as _request

OUT = pathlib.Path(os.environ.get("FUZZ_BODIES", ".fuzz/bodies"))
_read_request = _request.read_request


def _recording(envelope: Any, settings: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        text = orjson.dumps({"body": envelope})
    except TypeError:  # (not JSON: nothing to record)
        pass
    else:
        (OUT / f"{hashlib.sha1(text).hexdigest()[:16]}.json").write_bytes(text)
    return _read_request(envelope, settings, *args, **kwargs)


# installed as the plugin loads, before the test modules import ``read_request``
OUT.mkdir(parents=True, exist_ok=True)
_request.read_request = _recording
