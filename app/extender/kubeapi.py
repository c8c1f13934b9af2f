"""The Kubernetes API as the extender's snapshot source: list + watch over httpx.

One background thread runs an asyncio loop with one *reflector* task per resource (pods,
nodes, priority classes, PDBs, Volcano / KAI / scheduler-plugins / Kueue / Workload API
objects). Each reflector lists the resource page by page (``limit`` / ``continue``), then
watches from the list's ``resourceVersion`` with bookmarks, applying ADDED / MODIFIED /
DELETED events to its store:

* a watch that ends cleanly (the server's ``timeoutSeconds``) is re-opened from the last
  resource version seen;
* 410 Gone (HTTP status, or an ERROR event with code 410) means the resource version was
  compacted away: list again at once;
* a broken stream, a timeout, a 5xx / 429 / connection error, invalid JSON or a limit
  exceeded marks the resource failing and lists it again after a bounded exponential
  back-off with jitter (``Retry-After`` is honoured up to the back-off maximum);
* a 404 on an optional resource (a CRD group not installed, or a version not served) is
  an empty resource, not an error; the next version in its list is tried, and the
  resource is looked up again every ``crd_recheck`` seconds.

A resource whose watch is open is current. The snapshot keeps being served while no
resource has been failing for longer than ``max_staleness`` (a connection that hangs
without a byte is noticed after the watch timeout plus the request timeout); past it, and
before the first complete sync, ``objects()`` raises :class:`SnapshotUnavailable` and
``health()`` reports why (which ``/readyz`` turns into a 503).

Configuration comes from the environment only (never from a request): a kubeconfig file
(``GANGPLANK_KUBECONFIG``, else ``KUBECONFIG``) or the in-cluster service account
(``KUBERNETES_SERVICE_HOST`` / ``_PORT`` and the token and CA under
``/var/run/secrets/kubernetes.io/serviceaccount``; the token is re-read when the file
changes or the server answers 401, as bound tokens rotate).
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import os
import random
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

import httpx
import orjson
from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from app import __version__
from app.extender import bindcheck
from app.extender.kubeconfig import (
    SERVICE_ACCOUNT_DIR,
    KubeAuth,
    KubeConfig,
    KubeConfigError,
    in_cluster_config,
    kubeconfig_config,
)
from app.extender.source import SnapshotSource, SnapshotUnavailable
from app.ingest.kernels import untrack_json

log = logging.getLogger("gangplank.kubeapi")

#: Annotation kubectl apply leaves on objects; often the largest part of them, never read.
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
#: Error bodies are read up to this many bytes (only their ``message`` is used).
ERROR_BODY_BYTES = 64 * 1024


# Settings ---------------------------------------------------------------------------------
class KubeSourceSettings(BaseSettings):
    """``GANGPLANK_*`` settings of the API source (object and byte limits are the service's)."""

    model_config = SettingsConfigDict(env_prefix="GANGPLANK_", extra="ignore")

    #: Kubeconfig file; else ``KUBECONFIG`` (a path list); else the in-cluster service account.
    kubeconfig: str = ""
    #: Context of the kubeconfig to use (default: its ``current-context``).
    kube_context: str = ""
    #: Where the service-account token and ``ca.crt`` are mounted (in-cluster).
    kube_service_account_dir: str = SERVICE_ACCOUNT_DIR
    #: Serve the last good snapshot for at most this long after the API stops answering.
    kube_max_staleness_seconds: float = Field(60.0, gt=0)
    #: Deadline of one list page (and of connecting).
    kube_request_timeout_seconds: float = Field(30.0, gt=0)
    #: ``timeoutSeconds`` of a watch; the client gives up on a silent stream after this plus the request timeout.
    kube_watch_timeout_seconds: int = Field(300, ge=1)
    #: ``limit`` of one list page.
    kube_page_size: int = Field(500, ge=1)
    #: First back-off after a failure; doubles per consecutive failure up to the maximum.
    kube_backoff_initial_seconds: float = Field(0.5, gt=0)
    kube_backoff_max_seconds: float = Field(30.0, gt=0)
    #: How often an absent optional resource (CRD not installed) is looked up again.
    kube_crd_recheck_seconds: float = Field(60.0, gt=0)
    #: A new snapshot (a new gang plan) at most this often while the cluster keeps changing; 0 = on every change.
    kube_snapshot_interval_seconds: float = Field(1.0, ge=0)
    #: Seed of the back-off jitter (unset: random); for reproducible runs.
    kube_seed: int | None = None


# Resources --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Resource:
    group: str
    versions: tuple[str, ...]  # tried in order; the first one served is used
    plural: str
    kind: str
    optional: bool = False  # a CRD: 404 = not installed = empty
    field_selector: str | None = None

    @property
    def name(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def api_version(self, version: str) -> str:
        return f"{self.group}/{version}" if self.group else version

    def path(self, version: str) -> str:
        return f"/apis/{self.group}/{version}/{self.plural}" if self.group else f"/api/{version}/{self.plural}"


#: Everything the extender's decision can read (see README "Objects understood"), in the
#: order the snapshot lists them. Every (group, plural) needs list and watch in the
#: ClusterRole of deploy/base (a test checks it).
RESOURCES: tuple[Resource, ...] = (
    Resource("", ("v1",), "nodes", "Node"),
    Resource("", ("v1",), "pods", "Pod"),
    Resource("", ("v1",), "namespaces", "Namespace"),
    Resource("", ("v1",), "configmaps", "ConfigMap", field_selector="metadata.name=volcano-controller-configmap"),
    Resource("scheduling.k8s.io", ("v1",), "priorityclasses", "PriorityClass"),
    Resource("policy", ("v1",), "poddisruptionbudgets", "PodDisruptionBudget"),
    Resource("scheduling.volcano.sh", ("v1beta1",), "queues", "Queue", optional=True),
    Resource("scheduling.volcano.sh", ("v1beta1",), "podgroups", "PodGroup", optional=True),
    Resource("topology.volcano.sh", ("v1alpha1",), "hypernodes", "HyperNode", optional=True),
    Resource("scheduling.run.ai", ("v2",), "queues", "Queue", optional=True),
    Resource("scheduling.run.ai", ("v2alpha2",), "podgroups", "PodGroup", optional=True),
    Resource("scheduling.run.ai", ("v1alpha2",), "bindrequests", "BindRequest", optional=True),
    Resource("kai.scheduler", ("v1alpha1",), "topologies", "Topology", optional=True),
    Resource("kueue.x-k8s.io", ("v1beta2", "v1beta1", "v1alpha1"), "topologies", "Topology", optional=True),
    Resource("scheduling.x-k8s.io", ("v1alpha1",), "podgroups", "PodGroup", optional=True),
    Resource("scheduling.k8s.io", ("v1beta1", "v1alpha2", "v1alpha1"), "workloads", "Workload", optional=True),
    Resource("scheduling.k8s.io", ("v1beta1", "v1alpha2"), "podgroups", "PodGroup", optional=True),
    # DRA (resource.k8s.io/v1, GA in 1.34; optional: an older cluster does not serve v1), so a
    # pod with claims is decided with its claims, the devices and their classes
    Resource("resource.k8s.io", ("v1",), "deviceclasses", "DeviceClass", optional=True),
    Resource("resource.k8s.io", ("v1",), "resourceslices", "ResourceSlice", optional=True),
    Resource("resource.k8s.io", ("v1",), "resourceclaims", "ResourceClaim", optional=True),
)


def config_from_env(settings: KubeSourceSettings, env: dict[str, str] | os._Environ[str] | None = None) -> KubeConfig:
    """``GANGPLANK_KUBECONFIG``, else ``KUBECONFIG``, else the in-cluster service account."""
    env = os.environ if env is None else env
    if settings.kubeconfig:
        return kubeconfig_config([settings.kubeconfig], settings.kube_context)
    if env.get("KUBECONFIG"):
        return kubeconfig_config(env["KUBECONFIG"].split(os.pathsep), settings.kube_context)
    return in_cluster_config(settings.kube_service_account_dir, env)


# Back-off ---------------------------------------------------------------------------------
class Backoff:
    """Bounded exponential back-off with jitter: attempt n waits
    ``min(maximum, initial * 2**n) * (0.5 + 0.5 * rng.random())``, and never less than a
    server's ``Retry-After`` (itself capped at ``maximum``)."""

    def __init__(self, initial: float, maximum: float, rng: random.Random) -> None:
        self.initial = initial
        self.maximum = maximum
        self.rng = rng
        self.attempt = 0

    def next(self, retry_after: float | None = None) -> float:
        base = min(self.maximum, self.initial * 2.0 ** min(self.attempt, 62))
        self.attempt += 1
        delay = base * (0.5 + 0.5 * self.rng.random())
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.maximum))
        return delay

    def reset(self) -> None:
        self.attempt = 0


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After``: delay-seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    v = value.strip()
    if v.isdigit():
        return float(int(v))
    try:
        when = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


# Reflector state --------------------------------------------------------------------------
class _Failure(Exception):
    """A request failed in a way worth retrying after a back-off."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class _Gone(Exception):
    """410: the resource version (or continue token) is too old; list again."""


class _Absent(Exception):
    """404 on an optional resource (its CRD or this version is not served)."""


@dataclass
class ResourceState:
    resource: Resource
    items: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (namespace, name) -> object
    resource_version: str = ""
    version: str | None = None  # API version in use
    synced: bool = False  # a complete list (or "absent") has been seen
    absent: bool = False
    failing: bool = False
    failing_since: float = 0.0  # clock() when the current run of failures began
    error: str = ""
    lists: int = 0  # successful lists (tests and status)
    watches: int = 0  # watch streams opened
    gone_streak: int = 0


# The source -------------------------------------------------------------------------------
Sleep = Callable[[float], Awaitable[None]]


class KubeAPISource(SnapshotSource):
    """List + watch the Kubernetes API into an in-memory snapshot (see the module doc)."""

    def __init__(self, config: KubeConfig, *, resources: Iterable[Resource] = RESOURCES,
                 max_objects: int = 500_000, max_body_bytes: int = 64 * 1024 * 1024,
                 max_staleness: float = 60.0, request_timeout: float = 30.0, watch_timeout: int = 300,
                 page_size: int = 500, backoff_initial: float = 0.5, backoff_max: float = 30.0,
                 crd_recheck: float = 60.0, snapshot_interval: float = 1.0, seed: int | None = None,
                 assume_ttl: float = 300.0,
                 clock: Callable[[], float] = time.monotonic, sleep: Sleep | None = None) -> None:  # fmt: skip
        super().__init__(assume_ttl=assume_ttl, clock=clock)
        self.config = config
        self.resources = tuple(resources)
        self.max_objects = max_objects
        self.max_body_bytes = max_body_bytes
        self.max_staleness = max_staleness
        self.request_timeout = request_timeout
        self.watch_timeout = watch_timeout
        self.page_size = page_size
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.crd_recheck = crd_recheck
        self.snapshot_interval = snapshot_interval
        self.seed = seed
        self.clock = clock
        self._sleep: Sleep = sleep or asyncio.sleep
        self._ssl = config.ssl_context() if config.server.startswith("https://") else None
        self._auth = KubeAuth(config)
        self._lock = threading.Lock()
        self._states = {r.name: ResourceState(r) for r in self.resources}
        self._flat: list[dict[str, Any]] | None = None
        self._flat_at = float("-inf")
        self._dirty = False
        #: Pods seen bound (or deleted) since the last snapshot: their assumptions end when
        #: a snapshot that shows it is published, not before (or a plan would see neither).
        self._settled: set[str] = set()
        #: The last retries: (resource, reason, delay in seconds), newest last.
        self.retries: deque[tuple[str, str, float]] = deque(maxlen=256)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._started = threading.Event()

    # Lifecycle ------------------------------------------------------------------------
    def start(self) -> KubeAPISource:
        if self._thread is None:
            self._thread = threading.Thread(target=self._thread_main, name="gangplank-kubeapi", daemon=True)
            self._thread.start()
            self._started.wait(5)
        return self

    def close(self) -> None:
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed in between
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _thread_main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._task = loop.create_task(self._main())
            self._started.set()
            loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            pass
        finally:
            loop.close()

    async def _main(self) -> None:
        timeout = httpx.Timeout(self.request_timeout)
        limits = httpx.Limits(max_connections=2 * len(self.resources) + 4, max_keepalive_connections=len(self.resources) + 2)
        headers = {"Accept": "application/json", "User-Agent": f"gangplank/{__version__}"}
        async with httpx.AsyncClient(verify=self._ssl or True, auth=self._auth, timeout=timeout, limits=limits,
                                     headers=headers, trust_env=False) as client:  # fmt: skip
            self._client = client  # used by this loop's tasks only
            await asyncio.gather(*(self._reflect(self._states[r.name]) for r in self.resources))

    # Binding --------------------------------------------------------------------------
    def bind(self, namespace: str, name: str, uid: str, node: str) -> str:
        """Create the pod's ``Binding`` (``POST .../pods/<name>/binding``), as kube-scheduler
        does when an extender owns ``bindVerb``; on success the placement is assumed until
        a snapshot shows the pod bound. Needs RBAC ``create`` on ``pods/binding``."""
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": namespace, "uid": uid},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node}}  # fmt: skip
        server = self.config.server.rstrip("/")
        url = f"{server}/api/v1/namespaces/{quote(namespace, safe='')}/pods/{quote(name, safe='')}/binding"
        headers = {"Accept": "application/json", "Content-Type": "application/json", "User-Agent": f"gangplank/{__version__}"}
        try:
            with httpx.Client(verify=self._ssl or True, auth=self._auth, timeout=self.request_timeout,
                              trust_env=False) as client:  # fmt: skip
                # the node's pods as the API server has them now: binds not yet watched count
                listed = client.get(f"{server}/api/v1/pods", params={"fieldSelector": f"spec.nodeName={node}"}, headers=headers)
                if listed.status_code >= 300:
                    return f"binding {namespace}/{name} to {node} failed: listing the node's pods gave HTTP {listed.status_code}"
                why = self._room(namespace, name, uid, node, orjson.loads(listed.content).get("items") or [])
                if why is not None:
                    return f"bind refused: {why}"
                resp = client.post(url, content=orjson.dumps(body), headers=headers)
        except (httpx.HTTPError, orjson.JSONDecodeError, AttributeError) as e:
            return f"binding {namespace}/{name} to {node} failed: {type(e).__name__}"
        if resp.status_code >= 300:
            try:
                message = str(orjson.loads(resp.content).get("message", ""))[:300]
            except (orjson.JSONDecodeError, AttributeError):
                message = ""
            return f"binding {namespace}/{name} to {node} failed: HTTP {resp.status_code} {message}".rstrip()
        self.assume(uid, node)
        return ""

    def _room(self, namespace: str, name: str, uid: str, node: str, listed: list[Any]) -> str | None:
        """:func:`~app.extender.bindcheck.room_refusal` with the node's pods as just listed,
        plus those this instance assumed there that the list does not show yet."""
        idx = bindcheck.index_of(self.objects())
        node_obj, pod, by_uid = idx.nodes.get(node), idx.pods_exact.get((namespace, name)), idx.by_uid
        if node_obj is None or pod is None:
            return None  # the caller's snapshot checks said they exist; nothing better to judge by
        on_node = [o for o in listed if isinstance(o, dict)]
        seen = {str((o.get("metadata") or {}).get("uid")) for o in on_node}
        on_node += [by_uid[u] for u, n in self.live_assumptions().items() if n == node and u not in seen and u in by_uid]
        return bindcheck.room_refusal(node_obj, pod, on_node)

    # The snapshot -----------------------------------------------------------------------
    def objects(self) -> list[dict[str, Any]]:
        """Every object, resource by resource, each sorted by (namespace, name).

        The same list object is returned until something changed *and* the last one is at
        least ``snapshot_interval`` old: in a busy cluster pod events never stop, and a new
        snapshot per event would make every extender call plan its gang from scratch. The
        extender's own binds are not delayed by this (they are assumptions, laid over it)."""
        with self._lock:
            ready, reason = self._health_locked()
            if not ready:
                raise SnapshotUnavailable(reason)
            now = self.clock()
            if self._flat is None or (self._dirty and now - self._flat_at >= self.snapshot_interval):
                flat: list[dict[str, Any]] = []
                for r in self.resources:
                    items = self._states[r.name].items
                    flat.extend(items[k] for k in sorted(items))
                self._flat, self._flat_at, self._dirty = flat, now, False
                self._bump()
                settled, self._settled = self._settled, set()
                self.assumptions.forget(settled)
            return self._flat

    def health(self) -> tuple[bool, str]:
        with self._lock:
            return self._health_locked()

    def _health_locked(self) -> tuple[bool, str]:
        waiting = [s for s in self._states.values() if not s.synced]
        if waiting:
            errors = "; ".join(f"{s.resource.name}: {s.error}" for s in waiting if s.error)
            return False, (f"waiting for the first list of {', '.join(s.resource.name for s in waiting)} from "
                           f"{self.config.server}" + (f" (last error: {errors})" if errors else ""))  # fmt: skip
        now = self.clock()
        stale = [s for s in self._states.values() if s.failing and now - s.failing_since > self.max_staleness]
        if stale:
            parts = "; ".join(f"{s.resource.name} unconfirmed for {now - s.failing_since:.1f}s: {s.error}" for s in stale)
            return False, (f"the snapshot is stale (limit {self.max_staleness:g}s, GANGPLANK_KUBE_MAX_STALENESS_SECONDS): "
                           f"{parts}")  # fmt: skip
        total = sum(len(s.items) for s in self._states.values())
        if total > self.max_objects:
            return False, f"the cluster has {total} objects, more than {self.max_objects} (GANGPLANK_MAX_OBJECTS)"
        return True, ""

    def status(self) -> dict[str, dict[str, Any]]:
        """Per resource: sync state, API version, object count, resource version, last error."""
        with self._lock:
            return {s.resource.name: {"synced": s.synced, "absent": s.absent, "version": s.version,
                                      "objects": len(s.items), "resourceVersion": s.resource_version,
                                      "failing": s.failing, "error": s.error, "lists": s.lists,
                                      "watches": s.watches} for s in self._states.values()}  # fmt: skip

    def _changed(self) -> None:
        self._dirty = True

    def _good(self, st: ResourceState) -> None:
        st.failing = False
        st.error = ""

    # The reflector loop -----------------------------------------------------------------
    async def _reflect(self, st: ResourceState) -> None:
        res = st.resource
        rng = random.Random(f"{self.seed}:{res.name}") if self.seed is not None else random.Random()
        backoff = Backoff(self.backoff_initial, self.backoff_max, rng)
        need_list = True
        while True:
            try:
                if need_list:
                    present = await self._list(st)
                    need_list = False
                    backoff.reset()
                    if not present:
                        await self._sleep(self.crd_recheck)
                        need_list = True
                        continue
                quick = await self._watch(st)
                st.gone_streak = 0  # a watch ended cleanly: nothing was lost, go on from its resource version
                if quick:  # a server that closes watches at once: do not spin
                    await self._sleep(backoff.next())
                else:
                    backoff.reset()
            except _Gone as exc:
                need_list = True
                st.gone_streak += 1
                log.info("%s: %s; listing again", res.name, exc)
                if st.gone_streak > 1:  # 410 again and again: do not spin
                    await self._retry_later(st, backoff, f"410 Gone again: {exc}", None, fail=False)
            except _Absent:
                need_list = True  # the list records it as absent
            except _Failure as exc:
                need_list = True
                await self._retry_later(st, backoff, exc.reason, exc.retry_after)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # unforeseen: keep the reflector alive, say what happened
                log.exception("%s: unexpected error", res.name)
                need_list = True
                await self._retry_later(st, backoff, f"{type(exc).__name__}: {exc}", None)

    async def _retry_later(self, st: ResourceState, backoff: Backoff, reason: str, retry_after: float | None,
                           *, fail: bool = True) -> None:  # fmt: skip
        if fail:
            with self._lock:
                if not st.failing:  # an open watch kept it current until now
                    st.failing_since = self.clock()
                st.failing = True
                st.error = reason
        delay = backoff.next(retry_after)
        self.retries.append((st.resource.name, reason, delay))
        log.warning("%s: %s; retrying in %.2fs", st.resource.name, reason, delay)
        await self._sleep(delay)

    # List -------------------------------------------------------------------------------
    async def _list(self, st: ResourceState) -> bool:
        """List the resource into its store; False when it is not served (optional only)."""
        res = st.resource
        versions = res.versions if st.version is None else (st.version, *(v for v in res.versions if v != st.version))
        for version in versions:
            try:
                items, rv = await self._list_version(res, version)
            except _Absent:
                continue
            with self._lock:
                old = {k: o.get("metadata", {}).get("resourceVersion") for k, o in st.items.items()}
                new = {k: o.get("metadata", {}).get("resourceVersion") for k, o in items.items()}
                if old != new or st.version != version or not st.synced:
                    st.items = items
                    self._changed()
                st.version, st.resource_version, st.synced, st.absent = version, rv, True, False
                st.lists += 1
                self._good(st)
                if res.kind == "Pod" and not res.group:
                    self._settled.update(str(o["metadata"].get("uid", "")) for o in items.values()
                                         if (o.get("spec") or {}).get("nodeName"))  # fmt: skip
            return True
        with self._lock:
            if st.items or not st.synced:
                st.items = {}
                self._changed()
            st.version, st.resource_version, st.synced, st.absent = None, "", True, True
            self._good(st)
        return False

    async def _list_version(self, res: Resource, version: str) -> tuple[dict[tuple[str, str], dict[str, Any]], str]:
        url = self.config.server + res.path(version)
        items: dict[tuple[str, str], dict[str, Any]] = {}
        budget = self.max_body_bytes
        token = ""
        rv = ""
        api_version = res.api_version(version)
        while True:
            params = {"limit": str(self.page_size)}
            if token:
                params["continue"] = token
            if res.field_selector:
                params["fieldSelector"] = res.field_selector
            raw = await self._get(res, url, params, budget)
            budget -= len(raw)
            try:
                doc = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise _Failure(f"invalid JSON in the list of {res.name}: {exc}") from exc
            if not isinstance(doc, dict) or not isinstance(doc.get("items", []), list):
                raise _Failure(f"the answer to the list of {res.name} is not a List")
            meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
            for i, obj in enumerate(doc.get("items") or []):
                obj = _clean(obj, res, api_version, f"item {i} of the list of {res.name}")
                items[_key(obj)] = obj
                if len(items) > self.max_objects:
                    raise _Failure(f"the list of {res.name} has more than {self.max_objects} objects (GANGPLANK_MAX_OBJECTS)")
            if not token:
                rv = str(meta.get("resourceVersion") or "")
            token = str(meta.get("continue") or "")
            if not token:
                break
        if not rv:
            raise _Failure(f"the list of {res.name} has no metadata.resourceVersion")
        return items, rv

    async def _get(self, res: Resource, url: str, params: dict[str, str], budget: int) -> bytes:
        try:
            async with asyncio.timeout(self.request_timeout):
                async with self._client.stream("GET", url, params=params, extensions=self._extensions()) as resp:
                    if resp.status_code != 200:
                        raise await _status_error(res, resp)
                    return await _read_bounded(resp, budget, f"the list of {res.name}")
        except TimeoutError as exc:
            raise _Failure(f"the list of {res.name} timed out after {self.request_timeout:g}s") from exc
        except httpx.HTTPError as exc:
            raise _Failure(f"the list of {res.name} failed: {type(exc).__name__}: {exc}") from exc

    def _extensions(self) -> dict[str, Any]:
        return {"sni_hostname": self.config.tls_server_name} if self.config.tls_server_name else {}

    # Watch ------------------------------------------------------------------------------
    async def _watch(self, st: ResourceState) -> bool:
        """Follow the resource from its resource version until the stream ends cleanly (the
        server's ``timeoutSeconds``, or our own cap on a stream left open); anything else
        raises. True when it ended within a second without a single event."""
        res = st.resource
        assert st.version is not None
        params = {"watch": "1", "resourceVersion": st.resource_version, "allowWatchBookmarks": "true",
                  "timeoutSeconds": str(self.watch_timeout)}  # fmt: skip
        if res.field_selector:
            params["fieldSelector"] = res.field_selector
        url = self.config.server + res.path(st.version)
        idle = self.watch_timeout + self.request_timeout
        timeout = httpx.Timeout(self.request_timeout, read=idle)
        began = time.monotonic()
        events = 0
        try:
            async with asyncio.timeout(idle):
                async with self._client.stream("GET", url, params=params, timeout=timeout,
                                               extensions=self._extensions()) as resp:  # fmt: skip
                    if resp.status_code != 200:
                        raise await _status_error(res, resp)
                    with self._lock:
                        st.watches += 1
                        self._good(st)
                    buf = bytearray()
                    async for chunk in resp.aiter_bytes():
                        buf += chunk
                        while (nl := buf.find(b"\n")) >= 0:
                            line = bytes(buf[:nl])
                            del buf[: nl + 1]
                            if line.strip():
                                self._event(st, line)
                                events += 1
                        if len(buf) > self.max_body_bytes:
                            raise _Failure(f"a watch event of {res.name} exceeds {self.max_body_bytes} bytes "
                                           "(GANGPLANK_MAX_BODY_BYTES)")
                    if buf.strip():
                        raise _Failure(f"the watch of {res.name} ended inside an event (truncated stream)")
        except TimeoutError:
            return False  # our own cap on a watch the server did not end: open a new one
        except httpx.HTTPError as exc:
            raise _Failure(f"the watch of {res.name} broke: {type(exc).__name__}: {exc}") from exc
        return events == 0 and time.monotonic() - began < 1.0

    def _event(self, st: ResourceState, line: bytes) -> None:
        res = st.resource
        try:
            ev = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise _Failure(f"invalid JSON in the watch of {res.name}: {exc}") from exc
        obj = ev.get("object") if isinstance(ev, dict) else None
        typ = ev.get("type") if isinstance(ev, dict) else None
        if not isinstance(obj, dict):
            raise _Failure(f"a watch event of {res.name} has no object")
        if typ == "ERROR":
            code, message = obj.get("code"), obj.get("message") or obj.get("reason") or ""
            if code == 410:
                raise _Gone(f"watch of {res.name}: {message or '410 Gone'}")
            raise _Failure(f"the watch of {res.name} reported an error: {code} {message}".rstrip())
        assert st.version is not None
        with self._lock:
            if typ == "BOOKMARK":
                rv = (obj.get("metadata") or {}).get("resourceVersion") if isinstance(obj.get("metadata"), dict) else None
                if rv:
                    st.resource_version = str(rv)
                self._good(st)
                return
            obj = _clean(obj, res, res.api_version(st.version), f"a {typ} event of {res.name}")
            key = _key(obj)
            if typ in ("ADDED", "MODIFIED"):
                st.items[key] = obj
                if len(st.items) > self.max_objects:
                    raise _Failure(f"{res.name} has more than {self.max_objects} objects (GANGPLANK_MAX_OBJECTS)")
                if res.kind == "Pod" and not res.group and (obj.get("spec") or {}).get("nodeName"):
                    self._settled.add(str(obj["metadata"].get("uid", "")))
            elif typ == "DELETED":
                st.items.pop(key, None)
                if res.kind == "Pod" and not res.group:
                    self._settled.add(str(obj["metadata"].get("uid", "")))
            else:
                raise _Failure(f"a watch event of {res.name} has the unknown type {typ!r}")
            st.resource_version = str(obj["metadata"].get("resourceVersion") or st.resource_version)
            self._changed()
            self._good(st)


def _clean(obj: Any, res: Resource, api_version: str, where: str) -> dict[str, Any]:
    """Stamp apiVersion/kind (list items lack them) and drop what is never read but large."""
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict) or not isinstance(obj["metadata"].get("name"), str):
        raise _Failure(f"{where} has no metadata.name")
    obj.setdefault("apiVersion", api_version)
    obj.setdefault("kind", res.kind)
    meta = obj["metadata"]
    meta.pop("managedFields", None)
    ann = meta.get("annotations")
    if isinstance(ann, dict) and LAST_APPLIED in ann:
        meta["annotations"] = {k: v for k, v in ann.items() if k != LAST_APPLIED}
    untrack_json(obj)  # kept as long as it is current, and acyclic (orjson's): the GC need not walk it
    return obj


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj["metadata"]
    return (str(meta.get("namespace") or ""), meta["name"])


async def _read_bounded(resp: httpx.Response, limit: int, what: str) -> bytes:
    declared = resp.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _Failure(f"{what} is {declared} bytes, more than the {limit} left (GANGPLANK_MAX_BODY_BYTES)")
    buf = bytearray()
    async for chunk in resp.aiter_bytes():
        buf += chunk
        if len(buf) > limit:
            raise _Failure(f"{what} exceeds {limit} bytes (GANGPLANK_MAX_BODY_BYTES)")
    return bytes(buf)


async def _status_error(res: Resource, resp: httpx.Response) -> Exception:
    """The exception for a non-200 answer: 404 on a CRD = absent, 410 = list again, else retry."""
    body = bytearray()
    try:
        async for chunk in resp.aiter_bytes():
            body += chunk
            if len(body) >= ERROR_BODY_BYTES:
                break
    except httpx.HTTPError:
        pass
    message = ""
    try:
        doc = orjson.loads(bytes(body))
        if isinstance(doc, dict):
            message = str(doc.get("message") or doc.get("reason") or "")
    except orjson.JSONDecodeError:
        message = bytes(body[:200]).decode("utf-8", "replace").strip()
    code = resp.status_code
    if code == 404 and res.optional:
        return _Absent(res.name)
    if code == 410:
        return _Gone(f"{res.name}: {message or '410 Gone'}")
    text = f"{res.name}: HTTP {code}" + (f" {message}" if message else "")
    if code in (401, 403):
        text += " (check the credentials and the ClusterRole gangplank-reader)"
    return _Failure(text, parse_retry_after(resp.headers.get("retry-after")))


def from_environment() -> KubeAPISource:
    """The API source as the environment configures it, started."""
    from app.settings import Settings

    try:
        ks = KubeSourceSettings()
        base = Settings()
    except ValidationError as exc:
        raise KubeConfigError(f"invalid Kubernetes source settings: {exc}") from exc
    cfg = config_from_env(ks)
    source = KubeAPISource(cfg, max_objects=base.max_objects, max_body_bytes=base.max_body_bytes,
                           max_staleness=ks.kube_max_staleness_seconds, request_timeout=ks.kube_request_timeout_seconds,
                           watch_timeout=ks.kube_watch_timeout_seconds, page_size=ks.kube_page_size,
                           backoff_initial=ks.kube_backoff_initial_seconds, backoff_max=ks.kube_backoff_max_seconds,
                           crd_recheck=ks.kube_crd_recheck_seconds, snapshot_interval=ks.kube_snapshot_interval_seconds,
                           seed=ks.kube_seed)  # fmt: skip
    return source.start()
