"""A key (bytes) for any JSON value a request decoded, for caches and signatures.

``orjson.dumps`` with sorted keys, except that orjson refuses an integer past 64 bits
(``TypeError``), which a request may carry in a field no reader checks the type of (a
toleration's ``operator``, a term of an affinity): such an integer is written as a marked
text, so it makes a key of its own and no request can make a key fail.
"""

from __future__ import annotations

from typing import Any

import orjson

_BIG = "\x00int"  # (no JSON string a request decodes to starts with a NUL and names the pair)


def json_key(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return orjson.dumps(_marked(value), option=orjson.OPT_SORT_KEYS)


def _marked(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else [_BIG, str(value)]
    if isinstance(value, dict):
        return {k: _marked(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_marked(v) for v in value]
    return value
