"""``/extender/<verb>``: kube-scheduler's HTTP extender protocol (k8s.io/kube-scheduler/extender/v1).

Field names are Go's (``Pod``, ``Nodes``, ``NodeNames``, ``FailedNodes``,
``FailedAndUnresolvableNodes``, ``Error``, ``Host``, ``Score``, ``NodeNameToVictims``,
``NodeNameToMetaVictims``, ``Pods``, ``UID``, ``NumPDBViolations``, ``PodName``,
``PodNamespace``, ``PodUID``, ``Node``), read case-insensitively and written exactly,
``null`` for unset. Policy answers are 200s; only a broken request is a 4xx.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from api_schemas.extender import (
    ExtenderArgs,
    ExtenderBindingArgs,
    ExtenderBindingResult,
    ExtenderFilterResult,
    ExtenderPreemptionArgs,
    ExtenderPreemptionResult,
    HostPriority,
)
from app.api.common import PROBLEM_RESPONSES, answer_body, body_schema, budgeted_body, json_response
from app.errors import InputError
from app.extender import bindcheck, nodeargs
from app.extender.nodeargs import NodeArgs, ci
from app.extender.plan import gang_guard, plan_for
from app.extender.source import SnapshotUnavailable, get_source
from app.ingest.body import decode
from app.settings import Settings, get_settings

router = APIRouter(tags=["extender"])
MAX_SCORE = 10
FITS_SCORE = 5  # within kube-scheduler's extender range 0..MAX_SCORE
NO_SOURCE = "no snapshot source configured (GANGPLANK_SNAPSHOT_DIR, or GANGPLANK_SNAPSHOT_SOURCE=kubernetes)"


def _pod(args: dict[str, Any] | NodeArgs) -> dict[str, Any]:
    pod = args.pod if isinstance(args, NodeArgs) else ci(args, "Pod")
    if not isinstance(pod, dict) or not isinstance(pod.get("metadata"), dict):
        raise InputError("'Pod' must be a Pod object with metadata", "/Pod")
    pod = dict(pod)
    pod.setdefault("apiVersion", "v1")
    pod.setdefault("kind", "Pod")
    return pod


def _args(args: dict[str, Any] | NodeArgs) -> NodeArgs:
    return args if isinstance(args, NodeArgs) else nodeargs.read(args)


def _source_or_error() -> Any:
    return get_source()


def do_filter(args: dict[str, Any] | NodeArgs, settings: Settings) -> dict[str, Any]:
    args = _args(args)
    names, objs = args.names, args.items
    source = _source_or_error()
    if source is None:
        return {"Nodes": None, "NodeNames": None, "FailedNodes": None, "FailedAndUnresolvableNodes": None,
                "Error": NO_SOURCE}  # fmt: skip
    plan = plan_for(source, _pod(args), settings)
    ok, failed, unresolvable = [], {}, {}
    domain, fits = plan.domain_nodes, plan.fits
    outside = f"gang {plan.job} must stay in HyperNode {plan.domain}"
    whole = None if plan.node is not None else f"gang {plan.job} cannot be placed as a whole now ({plan.message})"
    for n in names:
        why = fits.get(n)
        if domain is not None and n not in domain:
            unresolvable[n] = outside
        elif why is None:
            unresolvable[n] = "node is not in the snapshot"
        elif whole is not None:
            failed[n] = whole
        elif why:
            failed[n] = why
        else:
            ok.append(n)
    if objs is None:
        return {"Nodes": None, "NodeNames": ok, "FailedNodes": failed or {}, "FailedAndUnresolvableNodes": unresolvable or {},
                "Error": ""}  # fmt: skip
    keep = set(ok)
    items = [o for o, n in zip(objs, names, strict=True) if n in keep]
    return {"Nodes": {"apiVersion": "v1", "kind": "NodeList", "items": items}, "NodeNames": None,
            "FailedNodes": failed or {}, "FailedAndUnresolvableNodes": unresolvable or {}, "Error": ""}  # fmt: skip


def do_prioritize(args: dict[str, Any] | NodeArgs, settings: Settings) -> list[dict[str, Any]]:
    args = _args(args)
    names = args.names
    source = _source_or_error()
    if source is None:
        return [{"Host": n, "Score": 0} for n in names]
    plan = plan_for(source, _pod(args), settings)
    domain, fits, planned = plan.domain_nodes, plan.fits, plan.node
    # the planned node scores the most, another node that fits (inside the gang's domain) some
    return [{"Host": n, "Score": MAX_SCORE if n == planned else
             FITS_SCORE if fits.get(n) == "" and (domain is None or n in domain) else 0} for n in names]  # fmt: skip


def do_preempt(args: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """Only same-node victims can be expressed; nodes whose victims would break a gang, or
    outside the gang's domain, are dropped."""
    source = _source_or_error()
    meta = ci(args, "NodeNameToMetaVictims")
    full = ci(args, "NodeNameToVictims")
    result: dict[str, Any] = {}
    if source is None:
        return {"NodeNameToMetaVictims": None}
    plan = plan_for(source, _pod(args), settings)
    guard = gang_guard(source, settings)
    for node, victims in (meta or full or {}).items():
        if plan.domain_nodes is not None and node not in plan.domain_nodes:
            continue
        pods = ci(victims, "Pods") or []
        uids = []
        for p in pods:
            uid = ci(p, "UID") or (ci(p, "metadata") or {}).get("uid")
            if isinstance(uid, str):
                uids.append(uid)
        if any(guard.get(u, False) for u in uids):
            continue
        result[node] = {"Pods": [{"UID": u} for u in uids], "NumPDBViolations": int(ci(victims, "NumPDBViolations") or 0)}
    return {"NodeNameToMetaVictims": result}


def do_bind(args: dict[str, Any], settings: Settings) -> dict[str, Any]:
    source = _source_or_error()
    if source is None:
        return {"Error": NO_SOURCE}
    node = ci(args, "Node")
    uid = ci(args, "PodUID")
    if not isinstance(node, str) or not isinstance(uid, str) or not node or not uid:
        return {"Error": "bind needs PodUID and Node"}
    pod_name, pod_ns = ci(args, "PodName"), ci(args, "PodNamespace")
    if not isinstance(pod_name, str) or not pod_name:
        return {"Error": "bind needs PodName"}
    namespace = pod_ns if isinstance(pod_ns, str) and pod_ns else "default"
    why = bindcheck.refusal(source.objects(), namespace, pod_name, uid, node, source.live_assumptions())
    if why is not None:
        return {"Error": f"bind refused: {why}"}
    return {"Error": source.bind(namespace, pod_name, uid, node)}


#: Binds call the API server: they run in a small pool of their own, so a hanging API
#: server never takes the threads decisions and probes need; past ``2 × BIND_WORKERS``
#: binds in flight a bind is refused at once (kube-scheduler retries the pod).
BIND_WORKERS = 4
BIND_TIMEOUT_S = 30.0
_BIND_POOL = ThreadPoolExecutor(max_workers=BIND_WORKERS, thread_name_prefix="gangplank-bind")
_BIND_SLOTS = threading.BoundedSemaphore(2 * BIND_WORKERS)


async def run_bind(args: Callable[[], dict[str, Any]], settings: Settings) -> dict[str, Any]:
    """``do_bind`` in the bind pool; ``args`` decodes the request there (one hop off the
    event loop for both)."""
    if not _BIND_SLOTS.acquire(blocking=False):
        return {"Error": f"{2 * BIND_WORKERS} binds are in flight; retry later"}

    def run() -> dict[str, Any]:
        try:
            return do_bind(args(), settings)
        finally:
            _BIND_SLOTS.release()

    fut = asyncio.get_running_loop().run_in_executor(_BIND_POOL, run)
    try:
        return await asyncio.wait_for(asyncio.shield(fut), BIND_TIMEOUT_S)
    except TimeoutError:
        return {"Error": f"the bind did not finish within {BIND_TIMEOUT_S:.0f} s (the API server is slow); retry later"}


def unavailable(fn: Any, args: dict[str, Any] | NodeArgs, reason: str) -> Any:
    """The answer of a verb while the source has no fresh snapshot: filter and bind fail
    (kube-scheduler retries the pod later), prioritize has no opinion, preempt no victims."""
    error = f"no fresh cluster snapshot: {reason}"
    if fn is do_filter:
        return {"Nodes": None, "NodeNames": None, "FailedNodes": None, "FailedAndUnresolvableNodes": None, "Error": error}
    if fn is do_prioritize:
        return [{"Host": n, "Score": 0} for n in _args(args).names]
    if fn is do_preempt:
        return {"NodeNameToMetaVictims": None}
    return {"Error": error}


def _route(path: str, model: type, response: type, fn: Any) -> None:
    @router.post(path, response_model=response, responses=PROBLEM_RESPONSES, openapi_extra=body_schema(model, yaml=False),
                 name=fn.__name__)  # fmt: skip
    async def handler(request: Request) -> Response:
        settings = get_settings()
        if fn is not do_bind:  # read, decode, answer and encode in one pause of the GC (a NodeList can be megabytes)
            fast = nodeargs.fast if fn is do_filter or fn is do_prioritize else None
            return Response(await answer_body(request, settings, _answer, fn, settings, fast=fast), media_type="application/json")
        raw, content_type = await budgeted_body(request, settings)
        try:
            return json_response(await run_bind(lambda: decode(raw, content_type, max_yaml_nodes=settings.max_yaml_nodes),
                                                settings))  # fmt: skip
        except SnapshotUnavailable as exc:
            return json_response(unavailable(fn, {}, exc.reason))


def _answer(args: dict[str, Any] | NodeArgs, fn: Any, settings: Settings) -> bytes:
    """A verb's answer as it goes on the wire (a source without a fresh snapshot: see
    :func:`unavailable`)."""
    try:
        return orjson.dumps(fn(args, settings))
    except SnapshotUnavailable as exc:
        return orjson.dumps(unavailable(fn, args, exc.reason))


_route("/extender/filter", ExtenderArgs, ExtenderFilterResult, do_filter)
_route("/extender/prioritize", ExtenderArgs, list[HostPriority], do_prioritize)
_route("/extender/preempt", ExtenderPreemptionArgs, ExtenderPreemptionResult, do_preempt)
_route("/extender/bind", ExtenderBindingArgs, ExtenderBindingResult, do_bind)
