"""What the fuzzer feeds each input to (no atheris here, so the tests can run it too).

Every input must either be accepted or raise :class:`app.errors.InputError` (answered as a
4xx problem document); any other exception is a crash. The first byte picks the target:

====  ==========================================================================
0     a JSON request body: decode, then the whole ingest (objects, native form, build);
      and when the typed first pass reads it, the native form read from that pass must
      equal the one read from orjson's parse (same drafts, or the same error); when the
      Kubernetes objects' text reader (``kube.decode_objects``) reads it, likewise
1     a YAML request body (anchors, aliases, multi-document streams), same path
2     a body without Content-Type (sniffed), same path
3     one resource quantity, as every kind of resource (milli and byte units)
4     a label selector (JSON), parsed and matched against a few label sets
5     a Go duration and an RFC 3339 time
====  ==========================================================================
"""

from __future__ import annotations

import json
import math

import orjson

from app.errors import InputError
from app.ingest import fastjson, kube, reader
from app.ingest.body import decode, parse_json, to_envelope
from app.ingest.draft import Draft
from app.ingest.metalimits import MetaLimits, check_native
from app.ingest.native import read_native
from app.ingest.quantity import quantity_map
from app.ingest.request import read_request
from app.model.selectors import LabelSelector
from app.service import decide_request
from app.settings import Settings

# Small limits keep each execution short; the limits themselves are part of what is fuzzed.
SETTINGS = Settings(max_objects=2_000, max_yaml_nodes=20_000, max_hypernode_depth=16, max_regex_length=256)
CONTENT_TYPES = ("application/json", "application/yaml", None)
RESOURCES = ("cpu", "memory", "nvidia.com/gpu", "hugepages-2Mi", "ephemeral-storage", "pods")
LABEL_SETS = ({}, {"a": "1"}, {"rack": "r1", "zone": "z"}, {"kubernetes.io/hostname": "n0", "a": ""})
MODES = 6


def ingest(body: bytes, content_type: str | None) -> None:
    envelope = decode(body, content_type, max_yaml_nodes=SETTINGS.max_yaml_nodes)
    read_request(envelope, SETTINGS)


def native_drafts(envelope: dict) -> object:
    """The native section as read (drafts of pods and nodes), or the error."""
    d = Draft()
    try:
        check_native(envelope.get("cluster"), "/cluster", MetaLimits.of(SETTINGS))
        if envelope.get("cluster") is not None:
            read_native(envelope["cluster"], "/cluster", d, max_objects=SETTINGS.max_objects)
    except InputError as e:
        return (type(e).__name__, e.kind, e.pointer, e.detail, e.obj)
    return d.nodes, [*d.pods, *(b.draft(i) for b in d.pod_blocks for i in range(len(b)))]


def _has_infinity(value: object) -> bool:
    """Python's reading (the last of repeated keys kept, too-large numbers as infinity) has one."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack += v.values()
        elif isinstance(v, list):
            stack += v
        elif isinstance(v, float) and math.isinf(v):
            return True
    return False


def decision(envelope: dict) -> object:
    """The decision's wire answer (at a fixed time when the body sets none), or the error."""
    options = envelope.get("options")
    if options is None or (type(options) is dict and "now" not in options):
        envelope = {**envelope, "options": {**(options or {}), "now": "2026-11-23T12:00:00Z"}}
    try:
        return orjson.dumps(decide_request(read_request(envelope, SETTINGS)).wire())
    except InputError as e:
        return (type(e).__name__, e.kind, e.pointer, e.detail, e.obj)


def typed_pass_agrees(body: bytes) -> None:
    """The typed first pass (``app.ingest.fastjson``) changes nothing but speed."""
    fast = fastjson.decode_envelope(body)
    if fast is None:
        return
    try:
        slow = to_envelope(parse_json(body))
    except InputError as e:  # orjson refuses what the pass read
        if "infinity" in e.detail and not _has_infinity(json.loads(body)):
            return  # the documented difference: a number too large for a double in a value a repeated key replaces
        raise AssertionError(f"the typed first pass read a body orjson refuses: {e.detail}") from None
    if native_drafts(fast) != native_drafts(slow):
        raise AssertionError("the typed first pass and orjson read the native form differently")
    if decision(fast) != decision(slow):
        raise AssertionError("the typed first pass and orjson give different decisions")


def objects_drafts(envelope: dict, python: bool = False) -> object:
    """The Kubernetes objects as read (the whole draft), or the error; ``python``: by the
    Python readers alone (the C pod reader off), the reference."""
    d = Draft()
    kernel = kube._pod_fast_c
    if python:
        kube._pod_fast_c = None
    try:
        if envelope.get("objects") is not None:
            kube.read_objects(envelope["objects"], "/objects", d, max_objects=SETTINGS.max_objects, limits=MetaLimits.of(SETTINGS))
    except InputError as e:
        return (type(e).__name__, e.kind, e.pointer, e.detail, e.obj)
    finally:
        kube._pod_fast_c = kernel
    return d


def objects_text_agrees(body: bytes) -> None:
    """Reading the objects' pods from the text (``/v1/decisions``) changes nothing but speed."""
    fast = kube.decode_objects(body, SETTINGS)
    if fast is None:
        return
    try:
        slow = to_envelope(parse_json(body))
    except InputError as e:
        raise AssertionError(f"the objects' text reader read a body orjson refuses: {e.detail}") from None
    if objects_drafts(fast) != objects_drafts(slow, python=True):
        raise AssertionError("the objects' text reader and orjson read the objects differently")
    if decision(fast) != decision(slow):
        raise AssertionError("the objects' text reader and orjson give different decisions")


def selector(body: bytes) -> None:
    envelope = decode(body, "application/json", max_yaml_nodes=SETTINGS.max_yaml_nodes)
    raw = envelope.get("objects", envelope)  # decode wraps bare objects and arrays
    sel = LabelSelector.parse(raw, "/selector")
    for labels in LABEL_SETS:
        sel.matches(labels)


def one_input(data: bytes) -> bool:
    """Feed one input; True when accepted, False when refused with an InputError."""
    if not data:
        return True
    mode, body = data[0] % MODES, data[1:]
    try:
        if mode == 0:
            typed_pass_agrees(body)
            objects_text_agrees(body)
        if mode <= 2:
            ingest(body, CONTENT_TYPES[mode])
        elif mode == 3:
            text = body.decode("utf-8", "replace")
            quantity_map({r: text for r in RESOURCES}, "/q", None)
        elif mode == 4:
            selector(body)
        else:
            text = body.decode("utf-8", "replace")
            reader.duration(text, "/d", None)
            reader.timestamp(text, "/t", None)
    except InputError:
        return False
    return True
