"""Where the extender's cluster snapshot comes from (kube-scheduler never sends pods).

Two sources share one interface (``objects()``, ``version``, ``assume(uid, node)``,
``live_assumptions()``, ``health()``), so ``plan.py`` does not know which one it reads:

* ``DirectorySource`` reads every ``*.json`` / ``*.yaml`` / ``*.yml`` file of a directory
  (``kubectl get ... -o json`` dumps: a List, an object, or an array) and reloads when a
  file's size or modification time changes.
* ``KubeAPISource`` (``app/extender/kubeapi.py``) lists and watches the Kubernetes API.

Placements the extender itself chose (bind) are remembered by pod UID for a TTL
(:class:`AssumedPlacements`) and laid over the snapshot, so the next pod of a gang sees
its siblings even before the cluster shows them.

``objects()`` returns the same list object for as long as the snapshot is unchanged (the
gang plan cache compares by identity) and raises :class:`SnapshotUnavailable` when the
source has no snapshot fresh enough to decide on.
"""

from __future__ import annotations

import itertools
import os
import pathlib
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import orjson
import yaml

from app.ingest.body import expanded_size
from app.ingest.kernels import untrack_json

SUFFIXES = (".json", ".yaml", ".yml")

#: Versions are drawn from one process-wide counter, so two sources (or a source rebuilt
#: after a configuration change) never reuse a version number another one had.
_VERSIONS = itertools.count(1)


def next_version() -> int:
    return next(_VERSIONS)


class SnapshotUnavailable(Exception):
    """The configured source has no snapshot fresh enough to decide on (or is misconfigured)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class AssumedPlacements:
    """Pod UID -> node the extender bound it to, each forgotten after ``ttl`` seconds.

    ``on_change`` is called (under no lock of this class) whenever the live set changes,
    so the owning source can move its ``version``.
    """

    def __init__(self, ttl: float, on_change: Callable[[], None], clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self._clock = clock
        self._on_change = on_change
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[str, float]] = {}  # uid -> (node, expiry)

    def add(self, uid: str, node: str) -> None:
        with self._lock:
            self._entries[uid] = (node, self._clock() + self.ttl)
        self._on_change()

    def forget(self, uids: Iterable[str]) -> None:
        """Drop these pods' assumptions (the cluster now shows them bound, or gone)."""
        with self._lock:
            gone = [u for u in uids if self._entries.pop(u, None) is not None]
        if gone:
            self._on_change()

    def live(self) -> dict[str, str]:
        now = self._clock()
        with self._lock:
            expired = [u for u, (_, exp) in self._entries.items() if exp < now]
            for uid in expired:
                del self._entries[uid]
            live = {u: n for u, (n, _) in self._entries.items()}
        if expired:
            self._on_change()
        return live


class SnapshotSource:
    """What both sources share: a version that moves on every change, and assumptions."""

    def __init__(self, *, assume_ttl: float = 300.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.version = next_version()
        self.assumptions = AssumedPlacements(assume_ttl, self._bump, clock)

    def _bump(self) -> None:
        self.version = next_version()

    def objects(self) -> list[dict[str, Any]]:  # pragma: no cover - interface
        raise NotImplementedError

    def health(self) -> tuple[bool, str]:
        """(ready, reason): whether ``objects()`` would answer now, and why not."""
        try:
            self.objects()
        except SnapshotUnavailable as exc:
            return False, exc.reason
        return True, ""

    def bind(self, namespace: str, name: str, uid: str, node: str) -> str:
        """Carry out kube-scheduler's bind: "" on success, else the reason. A source that
        cannot write to a cluster only records the placement (the next pod of the gang sees
        it); a component that can must create the Binding."""
        self.assume(uid, node)
        return ""

    def assume(self, uid: str, node: str) -> None:
        self.assumptions.add(uid, node)

    def live_assumptions(self) -> dict[str, str]:
        return self.assumptions.live()

    def close(self) -> None:
        """Release background work (nothing for a directory)."""


class DirectorySource(SnapshotSource):
    def __init__(self, path: str, *, assume_ttl: float = 300.0, max_yaml_nodes: int = 5_000_000) -> None:
        super().__init__(assume_ttl=assume_ttl)
        self.path = pathlib.Path(path)
        self.max_yaml_nodes = max_yaml_nodes
        self._lock = threading.Lock()
        self._stamp: tuple | None = None
        self._objects: list[dict[str, Any]] = []

    def _files(self) -> list[pathlib.Path]:
        if not self.path.is_dir():
            raise SnapshotUnavailable(f"snapshot directory {self.path} does not exist (GANGPLANK_SNAPSHOT_DIR)")
        return sorted(p for p in self.path.iterdir() if p.suffix in SUFFIXES and p.is_file())

    def objects(self) -> list[dict[str, Any]]:
        """The snapshot's objects, re-read when any file changed."""
        files = self._files()
        try:
            stamp = tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files)
        except OSError as exc:  # a file vanished between listing and stat: the next call sees the new state
            raise SnapshotUnavailable(f"snapshot directory {self.path} changed while being read: {exc}") from exc
        with self._lock:
            if stamp != self._stamp:
                objs: list[dict[str, Any]] = []
                for f in files:
                    try:
                        raw = f.read_bytes()
                        docs = [orjson.loads(raw)] if f.suffix == ".json" else [
                            d for d in yaml.safe_load_all(raw) if d is not None]  # fmt: skip
                    except (OSError, ValueError, yaml.YAMLError) as exc:
                        raise SnapshotUnavailable(f"cannot read snapshot file {f.name}: {exc}") from exc
                    for d in docs:
                        if f.suffix != ".json":  # JSON has no aliases: its size is the file's
                            expanded_size(d, self.max_yaml_nodes)
                        else:  # kept until the next change, and acyclic: the GC need not walk it (YAML may alias)
                            untrack_json(d)
                        objs.extend(_items(d))
                self._objects = objs
                self._stamp = stamp
                self._bump()
            return self._objects


def _items(doc: Any) -> list[dict[str, Any]]:
    if isinstance(doc, list):
        return [d for x in doc for d in _items(x)]
    if isinstance(doc, dict) and isinstance(doc.get("items"), list) and str(doc.get("kind", "")).endswith("List"):
        return [d for x in doc["items"] for d in _items(x)]
    return [doc] if isinstance(doc, dict) else []


# The configured source ------------------------------------------------------------------
#: Environment that selects and configures the source; a change rebuilds it.
_KUBE_ENV = ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")
_SOURCE: SnapshotSource | None = None
_SOURCE_KEY: tuple | None = None
_SOURCE_LOCK = threading.Lock()


def _configured_kind(env: os._Environ[str] | dict[str, str]) -> str:
    kind = env.get("GANGPLANK_SNAPSHOT_SOURCE", "").strip().lower()
    if not kind:
        return "directory" if env.get("GANGPLANK_SNAPSHOT_DIR") else ""
    return kind


def _source_key(env: os._Environ[str] | dict[str, str]) -> tuple:
    kind = _configured_kind(env)
    if kind == "directory":
        return ("directory", env.get("GANGPLANK_SNAPSHOT_DIR", ""))
    if kind == "kubernetes":
        keep = sorted((k, v) for k, v in env.items() if k in _KUBE_ENV or k.startswith("GANGPLANK_KUBE")
                      or k in ("GANGPLANK_MAX_OBJECTS", "GANGPLANK_MAX_BODY_BYTES"))  # fmt: skip
        return ("kubernetes", *keep)
    return (kind,)


def get_source() -> SnapshotSource | None:
    """The configured source, created once per configuration.

    ``GANGPLANK_SNAPSHOT_SOURCE`` = ``directory`` (the default when ``GANGPLANK_SNAPSHOT_DIR``
    is set) or ``kubernetes``; unset and no directory: ``None``. A source that cannot be
    built (bad kubeconfig, unknown kind) raises :class:`SnapshotUnavailable`.
    """
    global _SOURCE, _SOURCE_KEY
    key = _source_key(os.environ)
    if key == ("",):
        return None
    with _SOURCE_LOCK:
        if _SOURCE is not None and _SOURCE_KEY == key:
            return _SOURCE
        if key[0] == "directory":
            if not key[1]:
                raise SnapshotUnavailable("GANGPLANK_SNAPSHOT_SOURCE=directory needs GANGPLANK_SNAPSHOT_DIR")
            new: SnapshotSource = DirectorySource(key[1])
        elif key[0] == "kubernetes":
            from app.extender.kubeapi import from_environment  # the httpx client only when asked for

            new = from_environment()
        else:
            raise SnapshotUnavailable(f"GANGPLANK_SNAPSHOT_SOURCE must be 'directory' or 'kubernetes', not {key[0]!r}")
        old, _SOURCE, _SOURCE_KEY = _SOURCE, new, key
    if old is not None:
        old.close()
    return new


def close_source() -> None:
    """Stop and forget the configured source (shutdown, tests)."""
    global _SOURCE, _SOURCE_KEY
    with _SOURCE_LOCK:
        old, _SOURCE, _SOURCE_KEY = _SOURCE, None, None
    if old is not None:
        old.close()
