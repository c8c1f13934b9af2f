"""Where the extender's cluster snapshot comes from (kube-scheduler never sends pods).

``DirectorySource`` reads every ``*.json`` / ``*.yaml`` / ``*.yml`` file of a directory
(``kubectl get ... -o json`` dumps: a List, an object, or an array) and reloads when a
file's size or modification time changes. Placements the extender itself chose (bind) are
remembered by pod UID for a TTL and laid over the snapshot, so the next pod of a gang
sees its siblings even before the dump shows them.
"""

from __future__ import annotations

import os
import pathlib
import threading
import time
from typing import Any

import orjson
import yaml

from app.ingest.body import expanded_size

SUFFIXES = (".json", ".yaml", ".yml")


class DirectorySource:
    def __init__(self, path: str, *, assume_ttl: float = 300.0, max_yaml_nodes: int = 5_000_000) -> None:
        self.path = pathlib.Path(path)
        self.assume_ttl = assume_ttl
        self.max_yaml_nodes = max_yaml_nodes
        self._lock = threading.Lock()
        self._stamp: tuple = ()
        self._objects: list[dict[str, Any]] = []
        self.version = 0
        self.assumed: dict[str, tuple[str, float]] = {}  # pod uid -> (node, expiry)

    def _files(self) -> list[pathlib.Path]:
        if not self.path.is_dir():
            return []
        return sorted(p for p in self.path.iterdir() if p.suffix in SUFFIXES and p.is_file())

    def objects(self) -> list[dict[str, Any]]:
        """The snapshot's objects, re-read when any file changed."""
        files = self._files()
        stamp = tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files)
        with self._lock:
            if stamp != self._stamp:
                objs: list[dict[str, Any]] = []
                for f in files:
                    raw = f.read_bytes()
                    docs = [orjson.loads(raw)] if f.suffix == ".json" else [
                        d for d in yaml.safe_load_all(raw) if d is not None]  # fmt: skip
                    for d in docs:
                        expanded_size(d, self.max_yaml_nodes)
                        objs.extend(_items(d))
                self._objects = objs
                self._stamp = stamp
                self.version += 1
            return self._objects

    def assume(self, uid: str, node: str) -> None:
        with self._lock:
            self.assumed[uid] = (node, time.monotonic() + self.assume_ttl)
            self.version += 1

    def live_assumptions(self) -> dict[str, str]:
        now = time.monotonic()
        with self._lock:
            for uid in [u for u, (_, exp) in self.assumed.items() if exp < now]:
                del self.assumed[uid]
            return {u: n for u, (n, _) in self.assumed.items()}


def _items(doc: Any) -> list[dict[str, Any]]:
    if isinstance(doc, list):
        return [d for x in doc for d in _items(x)]
    if isinstance(doc, dict) and isinstance(doc.get("items"), list) and str(doc.get("kind", "")).endswith("List"):
        return [d for x in doc["items"] for d in _items(x)]
    return [doc] if isinstance(doc, dict) else []


_SOURCE: DirectorySource | None = None


def get_source() -> DirectorySource | None:
    """The configured source (``GANGPLANK_SNAPSHOT_DIR``), created once."""
    global _SOURCE
    path = os.environ.get("GANGPLANK_SNAPSHOT_DIR")
    if not path:
        return None
    if _SOURCE is None or str(_SOURCE.path) != path:
        _SOURCE = DirectorySource(path)
    return _SOURCE
