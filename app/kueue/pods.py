"""Kueue's Pod integration (framework ``pod``): plain pods and pod groups.

Kueue's ``pkg/controller/jobs/pod`` (``pod_controller.go``, ``pod_webhook.go``) and
``pkg/util/pod`` (``GenerateRoleHash``, ``SpecShape``), as far as they decide whether a pod
(or a group of pods) gets a Workload and what it holds.

**Role hash.** ``getRoleHash``: the pod's ``kueue.x-k8s.io/role-hash`` annotation when it
has one, else ``GenerateRoleHash``: the first 8 hex digits of the SHA-256 of Go's
``json.Marshal`` of ``{"spec": SpecShape(spec)}``, emulated here for exactly the types
SpecShape holds (:func:`spec_shape_json`): maps with sorted keys, structs in declaration
order honouring ``omitempty``, nil slices and maps as ``null`` (an empty list or map of the
pod's JSON is nil once the API server has stored it), a ``resource.Quantity`` as its
``MarshalJSON`` writes it (:func:`quantity_string`: the text as written when ``ParseQuantity``
keeps it, else the canonical string), strings with ``<``, ``>``, ``&``, U+2028 and
U+2029 escaped. Fields Go does not decode into those types are dropped; a field of the
wrong JSON type is a 422 at its pointer.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import gostrconv
from app.ingest import reader as r
from app.ingest.quantity import parse_quantity
from app.kueue import apps, jobs, limitrange
from app.kueue.objects import ADMISSION_GATED_BY, IS_GROUP_WORKLOAD, MAX_POD_SETS, Workload, _pod_set

ROLE_HASH_ANNOTATION = "kueue.x-k8s.io/role-hash"

# -- Go's encoding/json for the types of SpecShape -------------------------------------------
# a struct: its fields in declaration order, (json name, type, omitempty); types: "string",
# "int", "*string", "*int", "[]string", "map", "quantities" (a ResourceList), "*Name" (a
# pointer to struct Name), "[]Name" (a slice of struct Name), "Name" (a struct value)
_STRUCTS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "Affinity": (("nodeAffinity", "*NodeAffinity", True), ("podAffinity", "*PodAffinity", True),
                 ("podAntiAffinity", "*PodAffinity", True)),
    "NodeAffinity": (("requiredDuringSchedulingIgnoredDuringExecution", "*NodeSelector", True),
                     ("preferredDuringSchedulingIgnoredDuringExecution", "[]PreferredSchedulingTerm", True)),
    "NodeSelector": (("nodeSelectorTerms", "[]NodeSelectorTerm", False),),
    "NodeSelectorTerm": (("matchExpressions", "[]NodeSelectorRequirement", True),
                         ("matchFields", "[]NodeSelectorRequirement", True)),
    "NodeSelectorRequirement": (("key", "string", False), ("operator", "string", False), ("values", "[]string", True)),
    "PreferredSchedulingTerm": (("weight", "int", False), ("preference", "NodeSelectorTerm", False)),
    "PodAffinity": (("requiredDuringSchedulingIgnoredDuringExecution", "[]PodAffinityTerm", True),
                    ("preferredDuringSchedulingIgnoredDuringExecution", "[]WeightedPodAffinityTerm", True)),
    "PodAffinityTerm": (("labelSelector", "*LabelSelector", True), ("namespaces", "[]string", True),
                        ("topologyKey", "string", False), ("namespaceSelector", "*LabelSelector", True),
                        ("matchLabelKeys", "[]string", True), ("mismatchLabelKeys", "[]string", True)),
    "WeightedPodAffinityTerm": (("weight", "int", False), ("podAffinityTerm", "PodAffinityTerm", False)),
    "LabelSelector": (("matchLabels", "map", True), ("matchExpressions", "[]LabelSelectorRequirement", True)),
    "LabelSelectorRequirement": (("key", "string", False), ("operator", "string", False), ("values", "[]string", True)),
    "Toleration": (("key", "string", True), ("operator", "string", True), ("value", "string", True),
                   ("effect", "string", True), ("tolerationSeconds", "*int", True)),
    "TopologySpreadConstraint": (("maxSkew", "int", False), ("topologyKey", "string", False),
                                 ("whenUnsatisfiable", "string", False), ("labelSelector", "*LabelSelector", True),
                                 ("minDomains", "*int", True), ("nodeAffinityPolicy", "*string", True),
                                 ("nodeTaintsPolicy", "*string", True), ("matchLabelKeys", "[]string", True)),
    "ContainerPort": (("name", "string", True), ("hostPort", "int", True), ("containerPort", "int", False),
                      ("protocol", "string", True), ("hostIP", "string", True)),
    "PodResourceClaim": (("name", "string", False), ("resourceClaimName", "*string", True),
                         ("resourceClaimTemplateName", "*string", True)),
}


def _empty(x: Any) -> bool:
    """Go's ``omitempty``: "", 0, false, an empty slice or map."""
    return x in ("", 0, False, [], {}) if isinstance(x, (str, int, list, dict)) else False


def go_string(s: str) -> str:
    """A Go ``encoding/json`` string: HTML-safe (``<``, ``>``, ``&`` as ``\\u003c`` ...),
    U+2028 and U+2029 escaped, other non-ASCII as UTF-8."""
    out = json.dumps(s, ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        out = out.replace(ch, esc)
    return out


class _Shape:
    """The encoder: ``ident`` names the pod in errors; ``manifest``: a pod not yet created,
    which gets the API server's defaults before Kueue's webhook hashes it (container ports'
    protocol ``TCP``; a container's limits as the requests it lacks)."""

    def __init__(self, ident: dict[str, str], keep_empty: bool = False, manifest: bool = False) -> None:
        self.ident = ident
        self.keep_empty = keep_empty
        self.manifest = manifest

    def nil(self, v: Any) -> bool:
        """A nil slice or map: absent, or empty as the API server stores it (``keep_empty``: a
        Go value built in memory, whose empty slices and maps are not nil)."""
        return v is None or (not self.keep_empty and v in ([], {}))

    def fail(self, what: str, ptr: str) -> InputError:
        return InputError(f"must be {what}", ptr, self.ident)

    def value(self, v: Any, typ: str, ptr: str) -> str:
        if typ in ("string", "*string"):
            if v is None:
                return '""' if typ == "string" else "null"
            if not isinstance(v, str):
                raise self.fail("a string", ptr)
            return go_string(v)
        if typ in ("int", "*int"):
            if v is None:
                return "0" if typ == "int" else "null"
            if isinstance(v, bool) or not isinstance(v, int):
                raise self.fail("an integer", ptr)
            return str(v)
        if typ == "[]string":
            if self.nil(v):
                return "null"
            if not isinstance(v, list):
                raise self.fail("an array of strings", ptr)
            return "[" + ",".join(self.value(x, "string", join_pointer(ptr, i)) for i, x in enumerate(v)) + "]"
        if typ == "map":
            if self.nil(v):
                return "null"
            if not isinstance(v, dict):
                raise self.fail("an object of strings", ptr)
            return "{" + ",".join(f"{go_string(k)}:{self.value(v[k], 'string', join_pointer(ptr, k))}" for k in sorted(v)) + "}"
        if typ == "quantities":
            if self.nil(v):
                return "null"
            if not isinstance(v, dict):
                raise self.fail("an object of resource quantities", ptr)
            return "{" + ",".join(f"{go_string(k)}:{go_string(quantity_string(v[k], join_pointer(ptr, k), self.ident))}"
                                  for k in sorted(v)) + "}"  # fmt: skip
        if typ == "[]ContainerPort" and self.manifest and isinstance(v, list):
            v = [{"protocol": "TCP", **p} if isinstance(p, dict) and p.get("protocol") is None else p for p in v]
        if typ.startswith("[]"):
            if self.nil(v):
                return "null"
            if not isinstance(v, list):
                raise self.fail("an array", ptr)
            return "[" + ",".join(self.value(x, typ[2:], join_pointer(ptr, i)) for i, x in enumerate(v)) + "]"
        if typ.startswith("*"):
            return "null" if v is None else self.value(v, typ[1:], ptr)
        return self.struct(v, typ, ptr)

    def struct(self, v: Any, name: str, ptr: str) -> str:
        if v is None:
            v = {}
        if not isinstance(v, dict):
            raise self.fail("an object", ptr)
        parts = []
        for key, typ, omitempty in _STRUCTS[name]:
            x = v.get(key)
            if omitempty and (x is None or (not typ.startswith("*") and _empty(x))):
                continue  # (a pointer is left out only when nil; a string, number, slice or map when empty)
            parts.append(f"{go_string(key)}:{self.value(x, typ, join_pointer(ptr, key))}")
        return "{" + ",".join(parts) + "}"

    def containers(self, v: Any, ptr: str) -> str:
        """``ContainersShape``: per container ``{"ports": ..., "resources": {"requests": ...}}``."""
        if self.nil(v):
            return "null"
        if not isinstance(v, list):
            raise self.fail("an array of containers", ptr)
        out = []
        for i, c in enumerate(v):
            cp = join_pointer(ptr, i)
            if not isinstance(c, dict):
                raise self.fail("a container object", cp)
            res = c.get("resources")
            if res is not None and not isinstance(res, dict):
                raise self.fail("an object", join_pointer(cp, "resources"))
            requests = (res or {}).get("requests")
            limits = (res or {}).get("limits")
            if self.manifest and isinstance(limits, dict) and limits and (requests is None or isinstance(requests, dict)):
                # the API server's SetDefaults_Pod, before the webhook: a limit without a request is its request
                requests = {**limits, **(requests or {})}
            out.append(f'{{"ports":{self.value(c.get("ports"), "[]ContainerPort", join_pointer(cp, "ports"))},'
                       f'"resources":{{"requests":{self.value(requests, "quantities", join_pointer(cp, "resources", "requests"))}}}}}')  # fmt: skip
        return "[" + ",".join(out) + "]"


def spec_shape_json(spec: Any, ptr: str, ident: dict[str, str], *, manifest: bool = False,
                    keep_empty: bool = False) -> str:  # fmt: skip
    """Go's ``json.Marshal(map[string]any{"spec": SpecShape(spec)})`` for a pod's ``spec``
    as the API server stores it (``ptr``: where that spec is)."""
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        raise InputError("must be an object", ptr, ident)
    enc = _Shape(ident, keep_empty, manifest)

    def at(key: str) -> str:
        return join_pointer(ptr, key)

    fields = {
        "initContainers": enc.containers(spec.get("initContainers"), at("initContainers")),
        "containers": enc.containers(spec.get("containers"), at("containers")),
        "nodeSelector": enc.value(spec.get("nodeSelector"), "map", at("nodeSelector")),
        "affinity": enc.value(spec.get("affinity"), "*Affinity", at("affinity")),
        "tolerations": enc.value(spec.get("tolerations"), "[]Toleration", at("tolerations")),
        "runtimeClassName": enc.value(spec.get("runtimeClassName"), "*string", at("runtimeClassName")),
        "priority": enc.value(spec.get("priority"), "*int", at("priority")),
        "topologySpreadConstraints": enc.value(spec.get("topologySpreadConstraints"), "[]TopologySpreadConstraint",
                                               at("topologySpreadConstraints")),  # fmt: skip
        "overhead": enc.value(spec.get("overhead"), "quantities", at("overhead")),
        "resourceClaims": enc.value(spec.get("resourceClaims"), "[]PodResourceClaim", at("resourceClaims")),
    }
    if spec.get("resources") is not None:  # pod-level resources: in the shape only when set
        res = spec["resources"]
        if not isinstance(res, dict):
            raise InputError("must be an object", at("resources"), ident)
        fields["resources"] = enc.value(res.get("requests"), "quantities", join_pointer(at("resources"), "requests"))
    return '{"spec":{' + ",".join(f"{go_string(k)}:{fields[k]}" for k in sorted(fields)) + "}}"


def generate_role_hash(spec: Any, ptr: str, ident: dict[str, str], *, manifest: bool = False,
                       keep_empty: bool = False) -> str:  # fmt: skip
    """``utilpod.GenerateRoleHash``."""
    shape = spec_shape_json(spec, ptr, ident, manifest=manifest, keep_empty=keep_empty)
    return hashlib.sha256(shape.encode()).hexdigest()[:8]


def role_hash(annotations: dict[str, str], spec: Any, ptr: str, ident: dict[str, str], *, manifest: bool = False) -> str:
    """``getRoleHash``: the role-hash annotation, else :func:`generate_role_hash` (``ptr``: the spec's)."""
    if ROLE_HASH_ANNOTATION in annotations:
        return annotations[ROLE_HASH_ANNOTATION]
    return generate_role_hash(spec, ptr, ident, manifest=manifest)


# -- resource.Quantity's canonical string (Quantity.String) ---------------------------------
_DEC_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BIN_SUFFIX = {0: "", 10: "Ki", 20: "Mi", 30: "Gi", 40: "Ti", 50: "Pi", 60: "Ei"}


_NUMBER = re.compile(r"\s*[+-]?[0-9]*(?:\.[0-9]*)?")


def _format_of(text: str) -> str:
    """The format ``ParseQuantity`` gives a quantity: by its suffix (an exponent ``e3``/``E3``
    is DecimalExponent; ``E`` alone is exa, DecimalSI)."""
    m = _NUMBER.match(text)
    suffix = text[m.end() if m else 0:].strip()
    if suffix in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
        return "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        return "DecimalExponent"
    return "DecimalSI"


_SPLIT = re.compile(r"[+-]?0*([0-9]*)(?:\.([0-9]*))?(.*)", re.S)
_DEC_EXP = {v: k for k, v in _DEC_SUFFIX.items()}
_BIN_EXP = {v: k for k, v in _BIN_SUFFIX.items() if v}


def go_keeps_text(text: str) -> bool:
    """Whether ``ParseQuantity`` keeps the text as written (its cached string ``s``, which
    ``MarshalJSON`` and ``String`` return as is): the int64 fast path of a text it deems
    canonical. Decimal: at most 18 digits, a scale (exponent less the fraction's digits) of
    at least -9 and a multiple of 3, the digits (leading zeros stripped, fraction appended)
    not starting with 0 nor ending in 000 (so ``1.500`` and ``+1`` stay, ``1.5`` becomes
    ``1500m``); binary: no fraction, the digits fitting its precision, the value not a
    multiple of 8."""
    m = _SPLIT.fullmatch(text)
    if m is None:
        return False
    num, denom, suffix = m[1] or "0", m[2] or "", m[3]
    shifted = num + denom
    if suffix in _BIN_EXP:
        exponent = _BIN_EXP[suffix]
        if denom or 15 - len(num) - exponent * 3 // 10 - 1 < 0:
            return False
        value = int(shifted)
        return (value << exponent) < 2**63 and value & 7 != 0
    if suffix in _DEC_EXP:
        exponent = _DEC_EXP[suffix]
    elif len(suffix) > 1 and suffix[0] in "eE" and re.fullmatch(r"[+-]?[0-9]+", suffix[1:]):
        exponent = int(suffix[1:])
    else:
        return False
    if 18 - len(num) - len(denom) < 0:
        return False
    scale = exponent - len(denom)
    return scale >= -9 and scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def quantity_string(raw: Any, ptr: str, ident: dict[str, str]) -> str:
    """``Quantity.MarshalJSON`` of a quantity as Go decodes it: the text as written when
    ``ParseQuantity`` keeps it (:func:`go_keeps_text`), else ``CanonicalizeBytes``: DecimalSI
    and DecimalExponent as mantissa x 10^(3k), trailing zeros folded into the exponent; BinarySI
    as mantissa x 1024^k when the value is an integer of magnitude 1024 or more, else as
    DecimalSI."""
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise InputError("must be a resource quantity (a string such as \"500m\" or \"1Gi\")", ptr, ident)
    text = raw if isinstance(raw, str) else repr(raw)
    try:
        nanos = parse_quantity(raw)
    except ValueError as e:
        raise InputError(str(e), ptr, ident) from None
    if nanos == 0:
        return "0"
    text = text.strip()  # (UnmarshalJSON trims the text before ParseQuantity)
    if go_keeps_text(text):
        return text
    fmt = _format_of(text)
    sign = "-" if nanos < 0 else ""
    mag = abs(nanos)
    if fmt == "BinarySI" and mag >= 1024 * 10**9 and mag % 10**9 == 0:
        n, k = mag // 10**9, 0
        while n % 1024 == 0:
            n //= 1024
            k += 10
        if k in _BIN_SUFFIX:
            return f"{sign}{n}{_BIN_SUFFIX[k]}"
    mant, exp = mag, -9
    while mant % 10 == 0:
        mant //= 10
        exp += 1
    while exp % 3:
        mant *= 10
        exp -= 1
    if fmt == "DecimalExponent":
        return f"{sign}{mant}" + (f"e{exp}" if exp else "")
    return f"{sign}{mant}{_DEC_SUFFIX[exp]}" if exp in _DEC_SUFFIX else f"{sign}{mant}e{exp}"


# -- the reconciler: which pods, and the Workload Kueue makes for a pod or a pod group -------
GROUP_NAME = "kueue.x-k8s.io/pod-group-name"  # label, or (WorkloadIdentifierAnnotations) annotation
TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"
FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"
SERVING = "kueue.x-k8s.io/pod-group-serving"
RETRIABLE = "kueue.x-k8s.io/retriable-in-group"
SUSPENDED_BY_PARENT = "kueue.x-k8s.io/pod-suspending-parent"
GATE = "kueue.x-k8s.io/admission"  # the scheduling gate Kueue's webhook adds, removed on admission
MANAGED = "kueue.x-k8s.io/managed"
#: the cluster reader's warning that it does not read the group label (app.ingest.build): the integration does
UNREAD_GROUPS = "pod(s) carry the label kueue.x-k8s.io/pod-group-name"
#: frameworks whose pods Kueue's Pod integration handles when ``pod`` is only implicitly enabled, all
#: modelled (app.kueue.deployment, app.kueue.statefulset, app.kueue.leaderworkerset): each enables it
PARENTS = ("deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset")
MODELLED_PARENTS = PARENTS

POD = jobs.Kind("pod", *jobs.FRAMEWORKS["pod"], "", ("Succeeded", "Failed"), ("spec",), "running pod(s)", False, "pod",
                True)  # fmt: skip
#: a pod group: its Workload is named after the group (the owner answered is ``Pod <group name>``)
POD_GROUP = jobs.Kind("pod", *jobs.FRAMEWORKS["pod"], "", ("Succeeded", "Failed"), ("spec",), "running pod(s)", False,
                      "pod", True)  # fmt: skip
KINDS = (POD, POD_GROUP)


class _At(str):
    """A source path's first token: the pointer of the pod the podSet is read from."""


class PodJob(jobs.Job):
    """A pod, or a pod group (:data:`POD_GROUP`: ``name`` the group's, its labels and
    annotations the first pod's, as Kueue's ``p.pod`` is the first of the group's list)."""

    __slots__ = ("members", "manifest")

    def __init__(self, *a: Any, members: list[Pod] | None = None, manifest: bool = False, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.members = members or []
        self.manifest = manifest

    @property
    def label(self) -> str:
        return f"pod group {self.key}" if self.kind is POD_GROUP else f"Pod {self.key}"

    def ptr(self, *path: str | int) -> str:
        if path and isinstance(path[0], _At):
            return join_pointer(str(path[0]), *path[1:])
        return join_pointer(self.pointer, *path)


@dataclass(slots=True)
class Pod:
    """A pod of the request, as the Pod integration reads it."""

    namespace: str
    name: str
    uid: str
    labels: dict[str, str]
    annotations: dict[str, str]
    spec: dict[str, Any]
    phase: str
    deleting: bool
    node_name: str
    gated: bool
    refs: Any
    created_raw: Any
    pointer: str
    ident: dict[str, str]
    finalizers: list[str] = field(default_factory=list)
    #: the ``WorkloadIdentifierAnnotations`` feature gate (on by default): the group name's annotation is read
    id_annotations: bool = True
    #: ``metadata.deletionTimestamp`` (epoch seconds) and ``deletionGracePeriodSeconds``
    deleted_at: float | None = None
    grace: int | None = None
    #: a manifest whose role hash Kueue's webhook generates here from the pod as posted
    posted_hash: bool = False
    #: a manifest's owner walk error, which Kueue's webhook (Default) returns: the pod is refused
    default_error: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def group(self) -> str:
        """``GetPodGroupName``: the annotation (with WorkloadIdentifierAnnotations, on by default), else the label."""
        return (self.id_annotations and self.annotations.get(GROUP_NAME)) or self.labels.get(GROUP_NAME, "")

    def is_active(self, now: float, fast_release: bool) -> bool:
        """A pod of ``IsActive``: Running, and not terminating (with FastQuotaReleaseInPodIntegration,
        off by default) nor past its deletion grace period (its deletionTimestamp plus
        deletionGracePeriodSeconds before now)."""
        if self.phase != "Running":
            return False
        if fast_release and self.deleting:
            return False
        return not (self.deleted_at is not None and self.grace is not None and now > self.deleted_at + self.grace)

    @property
    def terminated(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    @property
    def runnable_or_succeeded(self) -> bool:
        """``isPodRunnableOrSucceeded``: not Failed, and not deleted before getting a node."""
        if self.deleting and not self.node_name:
            return False
        return self.phase != "Failed"

    def role(self) -> str:
        return role_hash(self.annotations, self.spec, join_pointer(self.pointer, "spec"), self.ident, manifest=not self.uid)


def read_pod(o: dict, ptr: str, id_annotations: bool = True) -> Pod:
    meta = o.get("metadata")
    if not isinstance(meta, dict):
        raise InputError("a Pod needs metadata", join_pointer(ptr, "metadata"))
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("a Pod needs metadata.name", join_pointer(ptr, "metadata", "name"))
    ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) and meta.get("namespace") else "default"
    ident = {"kind": "Pod", "namespace": ns, "name": name}
    mp = join_pointer(ptr, "metadata")
    labels = r.str_map(meta, "labels", mp, ident)
    annotations = r.str_map(meta, "annotations", mp, ident)
    uid = r.string(meta, "uid", mp, ident) or ""
    spec = r.obj(o, "spec", ptr, ident)
    status = r.obj(o, "status", ptr, ident)
    phase = r.string(status, "phase", join_pointer(ptr, "status"), ident) or ""
    gates = r.objects(spec, "schedulingGates", join_pointer(ptr, "spec"), ident, "a scheduling gate")
    finalizers = r.strings(meta, "finalizers", mp, ident, "finalizers are strings") or []
    deleted = meta.get("deletionTimestamp")
    deleted_at = r.timestamp(deleted, join_pointer(mp, "deletionTimestamp"), ident) if deleted is not None else None
    grace = r.integer(meta, "deletionGracePeriodSeconds", mp, ident, default=None)
    return Pod(ns, name, uid, dict(labels), dict(annotations), spec, phase, meta.get("deletionTimestamp") is not None,
               r.string(spec, "nodeName", join_pointer(ptr, "spec"), ident) or "",
               any(g.get("name") == GATE for g in gates), jobs.check_refs(meta, ptr, ident),
               meta.get("creationTimestamp"), ptr, ident, list(finalizers), id_annotations, deleted_at, grace)  # fmt: skip


def _job(pod: Pod, kind: jobs.Kind = POD, name: str = "", members: list[Pod] | None = None) -> PodJob:
    """The :class:`jobs.Job` the shared readers see for a pod (``kind`` POD) or a group (the
    first pod's metadata, ``name`` the group's)."""
    src = jobs.Source("main", 1, None, {"metadata": {"annotations": pod.annotations}, "spec": pod.spec}, (_At(pod.pointer),))
    return PodJob(pod.namespace, name or pod.name, pod.uid if kind is POD else "", pod.labels, pod.annotations, 1, None,
                  False, pod.gated or pod.terminated, 0, pod.terminated, pod.deleting, pod.created_raw, 0,
                  pod.refs if isinstance(pod.refs, list) else [], pod.spec, pod.pointer, pod.ident, kind, [src],
                  members=members or [pod], manifest=not pod.uid)  # fmt: skip


def owner_ref(job: jobs.Job, constructed: bool) -> dict[str, Any]:
    """The answer's ``owner`` of a pod's Workload: the pod; of a group's, ``Pod <group name>``
    with a null uid (a group has none)."""
    return {"apiVersion": "v1", "kind": "Pod", "name": job.name, "uid": job.uid or None, "constructed": constructed}


def webhook_errors(job: PodJob) -> list[InputError]:
    """``PodWebhook.ValidateCreate``: ``ValidateJobOnCreate``, then ``validateCommon``: the
    managed label, the group metadata, the topology request on the pod's metadata, the
    prebuilt workload against the group name (field errors aggregated, in that order)."""
    pod = job.members[0]
    errs = jobs.job_on_create_errors(job)
    if MANAGED in pod.labels and pod.labels[MANAGED] != "true":
        errs.append(jobs._forbidden(job, ("metadata", "labels", MANAGED), f"metadata.labels[{MANAGED}]",
                                    "managed label value can only be 'true'"))  # fmt: skip
    errs.extend(_group_metadata_errors(job, pod))
    errs.extend(jobs._tas_request_errors(job, jobs.Source("main", 1, None, job.sources[0].template, ())))
    group = pod.group
    prebuilt, where = jobs.prebuilt_name(job)
    if group and prebuilt and prebuilt != group:
        errs.append(jobs._invalid(job, ("metadata", where, jobs.PREBUILT), f"metadata.{where}[{jobs.PREBUILT}]", prebuilt,
                                  "prebuilt workload and pod group should be equal"))  # fmt: skip
    return errs


def _group_name_at(pod: Pod) -> tuple[tuple[str, ...], str]:
    where = "annotations" if pod.id_annotations and pod.annotations.get(GROUP_NAME) else "labels"
    return ("metadata", where, GROUP_NAME), f"metadata.{where}[{GROUP_NAME}]"


def _group_metadata_errors(job: PodJob, pod: Pod) -> list[InputError]:
    """``validatePodGroupMetadata`` of the webhook."""
    gtc = pod.annotations.get(TOTAL_COUNT)
    total_at = (("metadata", "annotations", TOTAL_COUNT), f"metadata.annotations[{TOTAL_COUNT}]")
    if pod.id_annotations and pod.annotations.get(GROUP_NAME):
        detail = f"both the '{TOTAL_COUNT}' annotation and the '{GROUP_NAME}' annotation should be set"
    else:
        detail = f"both the '{TOTAL_COUNT}' annotation and the '{GROUP_NAME}' label should be set"
    errs: list[InputError] = []
    if not pod.group:
        if gtc is not None:
            return [_required(job, *_group_name_at(pod), detail)]
    else:
        path, fp = _group_name_at(pod)
        if bad := jobs.dns1123_subdomain_errors(pod.group):  # ValidateLabelAsCRDName / ValidateAnnotationAsCRDName
            errs.append(jobs._invalid(job, path, fp, pod.group, ",".join(bad)))
        if gtc is None:
            return errs + [_required(job, *total_at, detail)]
    if gtc is not None:
        _, err = group_total_count(pod)
        if err:
            errs.append(jobs._invalid(job, *total_at, gtc, err))
    return errs


def _required(job: PodJob, path: tuple[str, ...], fp: str, detail: str) -> InputError:
    return jobs._rejects(job, path, f"{fp}: Required value: {detail}")


POD_INDEX = "kueue.x-k8s.io/pod-group-pod-index"


def _pod_index_error(pod: Pod, total: int) -> str | None:
    """``ReadUIntFromLabelBelowBound(pod, pod-group-pod-index, total)`` as
    ``validatePodGroupMetadata`` reads it: a missing label is no error; the value must be a
    ``strconv.ParseUint`` (base 10, 64 bits) below the total count."""
    raw = pod.labels.get(POD_INDEX)
    if raw is None:
        return None
    where = f'incorrect label value "{raw[:100]}" for Pod "{pod.namespace}/{pod.name}"'
    if not raw or not raw.isascii() or not raw.isdigit():
        return f'{where}: invalid unsigned integer: strconv.ParseUint: parsing "{raw[:100]}": invalid syntax'
    digits = raw.lstrip("0") or "0"
    if len(digits) > 20 or int(digits) >= 2**64:
        return f'{where}: invalid unsigned integer: strconv.ParseUint: parsing "{raw[:100]}": value out of range'
    if int(digits) >= total:
        return f"{where}: validation error: value should be less than {total}"
    return None


def group_total_count(pod: Pod) -> tuple[int | None, str]:
    """``groupTotalCount``: (the count, "") or (None, Kueue's error)."""
    raw = pod.annotations.get(TOTAL_COUNT)
    if raw is None:
        return None, f"failed to extract '{TOTAL_COUNT}' annotation"
    v, err = jobs.go_atoi(raw)
    if v is None:
        return None, err
    if v < 1:
        return None, f"incorrect annotation value '{TOTAL_COUNT}={raw}': group total count should be greater than zero"
    return v, ""


def _candidate(pod: Pod) -> bool:
    """A pod the Pod integration may act on: a manifest (its webhook runs), or one carrying
    Kueue's managed, queue-name or group labels (others are no business of Kueue's)."""
    return (not pod.uid or MANAGED in pod.labels or bool(pod.labels.get(jobs.QUEUE_LABEL)) or bool(pod.group)
            or SUSPENDED_BY_PARENT in pod.annotations)  # fmt: skip


def _raw_candidate(o: dict, id_annotations: bool = True) -> bool:
    """:func:`_candidate` on the pod as given, before its fields are read strictly: a pod that
    is no business of Kueue's is not refused for a malformed field Kueue never reads."""
    meta = o.get("metadata")
    if not isinstance(meta, dict):
        return True  # (read_pod names what is missing)
    if not meta.get("uid"):
        return True
    labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
    ann = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    return (MANAGED in labels or bool(labels.get(jobs.QUEUE_LABEL)) or GROUP_NAME in labels
            or (id_annotations and GROUP_NAME in ann) or SUSPENDED_BY_PARENT in ann)  # fmt: skip


def resolve(raw_pods: list[tuple[dict, str]], jin: jobs.JobInput, workloads: list[tuple[dict, str]], *, now: float,
            local_queues: set[tuple[str, str]], wpcs: dict[str, int], namespaces: dict[str, dict[str, str]] | None,
            limits: dict[str, limitrange.Summary], runtime_classes: dict[str, dict[str, str] | None]) -> list[jobs.Outcome]:  # fmt: skip
    """Each pod (or pod group) of the request Kueue's Pod integration acts on, as its webhook
    (for a pod without a uid) and reconciler would treat it, in namespace/name order (a group
    by its name)."""
    pods = [read_pod(o, p, jin.id_annotations) for o, p in raw_pods if _raw_candidate(o, jin.id_annotations)]
    seen: set[str] = set()
    for pod in pods:
        if pod.key in seen:
            raise InputError(f"duplicate Pod {pod.key}", join_pointer(pod.pointer, "metadata", "name"), pod.ident)
        seen.add(pod.key)
    pods = sorted((p for p in pods if _candidate(p)), key=lambda p: (p.namespace, p.name))
    frameworks = jin.frameworks or jobs.DEFAULT_FRAMEWORKS
    enabled = {jobs.FRAMEWORKS[f] for f in frameworks if f in jobs.FRAMEWORKS}
    out: list[jobs.Outcome] = []
    if "pod" not in frameworks and not any(f in frameworks for f in MODELLED_PARENTS):
        for pod in pods:
            if not pod.terminated and (pod.labels.get(MANAGED) == "true" or (pod.labels.get(jobs.QUEUE_LABEL) and not pod.refs)):
                why = ("the integrations.frameworks of Kueue's Configuration do not enable pod: Kueue runs no reconciler "
                       "(and a no-op webhook) for Pods")  # fmt: skip
                out.append(jobs.Outcome(_job(pod), note=why))
        return out
    by_name, by_owner = _workload_index(workloads)
    cache: dict[Any, Any] = {}
    groups: dict[tuple[str, str], list[Pod]] = {}
    for pod in pods:
        job = jin.gates_onto(_job(pod))
        if not pod.uid and pod.namespace not in jobs.UNMANAGED_NAMESPACES:
            # a manifest: the mutating webhook (Default), then the validating one (ValidateCreate)
            _default(pod, job, jin, enabled, local_queues, wpcs, namespaces)
            _raise(webhook_errors(job))
        if pod.group:
            groups.setdefault((pod.namespace, pod.group), []).append(pod)
            continue
        res = jobs.Outcome(job)
        if why := _unmanaged(job, jin, enabled, namespaces):
            res.note = why
            res.no_queue_label = why.startswith("it has no ")  # (not Kueue's pod: not named one by one)
        else:
            _single(job, res, jin, by_name, by_owner, now=now, wpcs=wpcs, limits=limits, runtime_classes=runtime_classes,
                    cache=cache)  # fmt: skip
        out.append(res)
    for (ns, group), members in sorted(groups.items()):
        job = jin.gates_onto(_job(members[0], POD_GROUP, group, members))
        res = jobs.Outcome(job)
        if why := _unmanaged(job, jin, enabled, namespaces):
            res.note = why
            res.no_queue_label = why.startswith("it has no ")  # (not Kueue's pod: not named one by one)
        else:
            _group(job, res, jin, by_name, now=now, wpcs=wpcs, limits=limits, runtime_classes=runtime_classes)
        out.append(res)
    return out


def _raise(errs: list[InputError]) -> None:
    if errs:
        raise InputError(errs[0].detail, errs[0].pointer, errs[0].obj, more=errs[1:])


def _default(pod: Pod, job: PodJob, jin: jobs.JobInput, enabled: set[tuple[str, str]], local_queues: set[tuple[str, str]],
             wpcs: dict[str, int], namespaces: dict[str, dict[str, str]] | None) -> None:  # fmt: skip
    """``PodWebhook.Default`` on a manifest: outside the managed namespaces, or with an
    ancestor Kueue manages, nothing; else the default LocalQueue and WorkloadPriorityClass
    labels, and with a queue name (or ``manageJobsWithoutQueueName``) the managed label, the
    admission gate and the role-hash annotation."""
    if SUSPENDED_BY_PARENT in pod.annotations:  # suspended by its parent: gated and hashed, no other default
        _suspend(pod, job)
        return
    if not jin.manages_namespace(pod.namespace, namespaces):
        return
    top, why = jobs._ancestor(job, jin, enabled)
    if why:  # (Default returns FindAncestorJobManagedByKueue's error: the API server refuses the pod)
        pod.default_error = why
    if top is not None or why:
        return
    if not pod.labels.get(jobs.QUEUE_LABEL) and (pod.namespace, jobs.DEFAULT_LOCAL_QUEUE) in local_queues:
        pod.labels[jobs.QUEUE_LABEL] = jobs.DEFAULT_LOCAL_QUEUE
    if not pod.labels.get(jobs.PRIORITY_CLASS_LABEL) and jobs.DEFAULT_WPC in wpcs:
        pod.labels[jobs.PRIORITY_CLASS_LABEL] = jobs.DEFAULT_WPC
    if pod.labels.get(jobs.QUEUE_LABEL) or jin.manage_without_queue:
        pod.labels[MANAGED] = "true"
        _suspend(pod, job)


POD_INDEX_LABEL_ANNOTATION = "kueue.x-k8s.io/pod-group-pod-index-label"


def _suspend(pod: Pod, job: PodJob) -> None:
    """The webhook's ``gate``, its TopologyAwareScheduling step (on by default: the
    ``kueue.x-k8s.io/pod-group-pod-index-label`` annotation names a label whose value, ""
    when the pod has no such label, becomes the ``kueue.x-k8s.io/pod-group-pod-index``
    label; the TAS scheduling gate it also adds is Kueue's to remove on admission) and
    ``addRoleHash`` on a pod it suspends."""
    pod.gated = True
    job.suspended = True
    if POD_INDEX_LABEL_ANNOTATION in pod.annotations:
        pod.labels[POD_INDEX] = pod.labels.get(pod.annotations[POD_INDEX_LABEL_ANNOTATION], "")
    if ROLE_HASH_ANNOTATION not in pod.annotations:  # addRoleHash uses getRoleHash: an existing one is kept
        pod.posted_hash = True
        pod.annotations[ROLE_HASH_ANNOTATION] = generate_role_hash(pod.spec, join_pointer(pod.pointer, "spec"), pod.ident,
                                                                   manifest=True)  # fmt: skip


def _unmanaged(job: PodJob, jin: jobs.JobInput, enabled: set[tuple[str, str]],
               namespaces: dict[str, dict[str, str]] | None) -> str:  # fmt: skip
    """Why the reconciler leaves the pod (group: its first pod) alone, "" when it does not
    (``Skip``, the namespace checks, ``FindAncestorJobManagedByKueue``, the queue name)."""
    pod = job.members[0]
    parent = pod.annotations.get(SUSPENDED_BY_PARENT)
    frameworks = jin.frameworks or jobs.DEFAULT_FRAMEWORKS
    if "pod" not in frameworks and not parent:  # Skip: the Pod integration only implicitly enabled
        return (f"Kueue's Pod integration is only implicitly enabled (by {', '.join(f for f in PARENTS if f in frameworks)}) "
                f"and the pod has no {SUSPENDED_BY_PARENT} annotation: the reconciler skips it")  # fmt: skip
    if parent == "statefulset" and jobs.FRAMEWORKS["statefulset"] in enabled:
        return "it runs within its StatefulSet's Workload (Kueue's StatefulSet integration makes it; the pod joins it)"
    if parent == PARENTS[2] and jobs.FRAMEWORKS[PARENTS[2]] in enabled:
        return ("it runs within its LeaderWorkerSet group's Workload (Kueue's LeaderWorkerSet integration makes one per "
                "group; the pod joins it)")  # fmt: skip
    if parent is not None and parent != "deployment":
        return (f"it is suspended by a parent integration ({SUSPENDED_BY_PARENT}: {parent}): that integration is not "
                "modelled")  # fmt: skip
    if pod.default_error:
        return (f"{pod.default_error}; for a manifest, Kueue's Pod webhook (Default) fails with that error and the API "
                "server refuses the pod's creation")  # fmt: skip
    if pod.labels.get(MANAGED) != "true":
        return f"it has no {MANAGED}: \"true\" label (Kueue's webhook did not take it: the reconciler skips it)"
    if job.deleting and job.kind is POD:
        return "it is being deleted (Kueue only finalizes it)"
    if namespaces is not None and pod.namespace not in namespaces:
        return f"Namespace {pod.namespace} is not in the snapshot (Kueue skips a pod whose namespace it cannot find)"
    if not jin.manages_namespace(pod.namespace, namespaces):
        return f"the managedJobsNamespaceSelector leaves namespace {pod.namespace} out (Kueue does not manage its pods)"
    top, why = jobs._ancestor(job, jin, enabled) if parent is None else (None, "")  # (a Pod is top-level: IsTopLevel)
    if why:
        return why
    if top is not None:
        return f"its ancestor {top} is managed by Kueue: the pod runs within that owner's Workload, not one of its own"
    if not pod.labels.get(jobs.QUEUE_LABEL) and not jin.manage_without_queue:
        return f"it has no {jobs.QUEUE_LABEL} label (Kueue does not manage it)"
    return ""


def _workload_index(workloads: list[tuple[dict, str]]) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """(ns/name -> Workload, "Pod ns/name" -> keys of the Workloads with an ownerReference to that v1 Pod)."""
    by_name: dict[str, dict] = {}
    by_owner: dict[str, list[str]] = {}
    for key, ns, meta, o in apps.named_workloads(workloads):
        by_name[key] = o
        refs = meta.get("ownerReferences")
        for ref in refs if isinstance(refs, list) else ():
            if isinstance(ref, dict) and ref.get("apiVersion") == "v1" and ref.get("kind") == "Pod" \
                    and isinstance(ref.get("name"), str):  # fmt: skip
                listed = by_owner.setdefault(f"Pod {ns}/{ref['name']}", [])
                if key not in listed:
                    listed.append(key)
    return by_name, by_owner


def _gate_note(res: jobs.Outcome, what: str) -> None:
    res.unmodelled.append(f"{what}: admitted means ungated (Kueue removes the {GATE} scheduling gate and the pods "
                          "schedule); pending, it stays gated")  # fmt: skip


def _single(job: PodJob, res: jobs.Outcome, jin: jobs.JobInput, by_name: dict[str, dict], by_owner: dict[str, list[str]],
            *, now: float, wpcs: dict[str, int], limits: dict[str, limitrange.Summary],
            runtime_classes: dict[str, dict[str, str] | None], cache: dict[Any, Any]) -> None:  # fmt: skip
    """jobframework's reconciler for a single pod: its prebuilt Workload, else the Workloads
    owned by it (``FindMatchingWorkloads``), else (not finished) ``ConstructWorkload``."""
    prebuilt, _ = jobs.prebuilt_name(job)
    if prebuilt:
        key = f"{job.namespace}/{prebuilt}"
        wl = by_name.get(key)
        meta = wl.get("metadata") if wl is not None and isinstance(wl.get("metadata"), dict) else {}
        ctrl = jobs._controller(meta.get("ownerReferences"))
        if wl is None:
            res.note = f"its prebuilt Workload {key} is not in the snapshot (Kueue keeps the pod gated)"
        elif ctrl is not None and ctrl.get("uid") != job.uid:
            res.note = f"its prebuilt Workload {key} is controlled by another object (Kueue ignores it)"
        elif why := jobs._not_equivalent(job, wl, jin.flavor_tolerations, owned=True, cache=cache):
            # ensurePrebuiltWorkloadInSync (jobframework's EquivalentToWorkload for a single pod): finished, OutOfSync
            res.drop[key] = f"Kueue finishes it (OutOfSync): the prebuilt workload is out of sync with its {job.label} ({why})"
            res.note = f"its prebuilt Workload {key} is out of sync with it ({why}): Kueue finishes that Workload"
        elif job.finished:
            res.drop[key] = f"Kueue finishes it, as its Pod {job.key} has finished"
            res.note = "it has finished: Kueue finishes its Workload"
        else:
            res.existing = key
        return
    owned = sorted(by_owner.get(f"Pod {job.key}", []))
    if owned and job.finished:
        for key in owned:
            res.drop[key] = f"Kueue finishes or deletes it, as its Pod {job.key} has finished ({job.members[0].phase})"
        res.note = f"it has finished ({job.members[0].phase}): Kueue finishes its Workload"
        return
    match = ""
    to_delete: list[str] = []
    for key in owned:
        why = jobs._not_equivalent(job, by_name[key], jin.flavor_tolerations, cache=cache)
        if not why and not match:
            match = key
            continue
        res.drop[key] = f"Kueue deletes it: {why or 'another Workload of the pod matches it'}"
        to_delete.append(key)
    if not match and to_delete and job.suspended and not jobs._quota_reserved(by_name[to_delete[0]]):
        update = to_delete[0]
        why = res.drop.pop(update).removeprefix("Kueue deletes it: ")
        if _construct(job, update.split("/", 1)[1], res, now=now, wpcs=wpcs, pcs=jin.pod_priority_classes, limits=limits,
                      runtime_classes=runtime_classes, group=False):  # fmt: skip
            _rewrites(res, update, job.label, why)
        else:
            res.note += f" (its Workload {update}, not matching it, stays as it is)"
        return
    if match:
        res.existing = match
        res.gated_by = job.annotations.get(ADMISSION_GATED_BY, "")
        _gate_note(res, f"Pod {job.key}")
        if not job.suspended:
            _stop_note(res, job.label, by_name)
        return
    if job.finished:
        res.note = f"it has finished ({job.members[0].phase}): Kueue creates no Workload for it"
        return
    name = jobs.workload_name(job.name, job.uid, "Pod", "", short=jin.short_names)
    if f"{job.namespace}/{name}" in by_name and f"{job.namespace}/{name}" not in res.drop:
        res.note = f"the snapshot has a Workload named {job.namespace}/{name} that is not the Pod's (Kueue's create fails)"
        return
    if _construct(job, name, res, now=now, wpcs=wpcs, pcs=jin.pod_priority_classes, limits=limits,
                  runtime_classes=runtime_classes, group=False):  # fmt: skip
        _gate_note(res, f"Pod {job.key}")
        if not job.members[0].gated:  # ("pod without scheduling gate is terminated if workload is not admitted")
            res.unmodelled.append(f"Pod {job.key} is not gated and has no Workload: Kueue creates its Workload and, "
                                  "until that is admitted, stops the pod; its current placement is not released here")  # fmt: skip


def _source(pod: Pod, name: str, count: int) -> jobs.Source:
    """``constructPodSet``: the pod's spec (no metadata), its topology request from the pod's annotations."""
    return jobs.Source(name, count, None, {"metadata": {"annotations": pod.annotations}, "spec": pod.spec},
                       (_At(pod.pointer),))  # fmt: skip


def group_pod_sets(pods: list[Pod]) -> list[jobs.Source]:
    """``constructGroupPodSets``: one podSet per role hash of the runnable (or succeeded)
    pods, counting them, made from the first pod of the role; sorted by name."""
    out: dict[str, jobs.Source] = {}
    for pod in pods:
        if not pod.runnable_or_succeeded:
            continue
        h = pod.role()
        if h in out:
            out[h].count += 1
        else:
            out[h] = _source(pod, h, 1)
    return [out[h] for h in sorted(out)]


def _sort_active(pods: list[Pod]) -> list[Pod]:
    """``sortActivePods``: with Kueue's finalizer first, ungated first, older first (the
    creationTimestamps compared as times, an unset one the zero time; Go's sort is not
    stable: pods of equal keys keep their namespace/name order here)."""
    def created(p: Pod) -> float:
        if p.created_raw is None:
            return float("-inf")
        return r.timestamp(p.created_raw, join_pointer(p.pointer, "metadata", "creationTimestamp"), p.ident)

    return sorted(pods, key=lambda p: (MANAGED not in p.finalizers, p.gated, created(p)))


def _group(job: PodJob, res: jobs.Outcome, jin: jobs.JobInput, by_name: dict[str, dict], *, now: float,
           wpcs: dict[str, int], limits: dict[str, limitrange.Summary],
           runtime_classes: dict[str, dict[str, str] | None]) -> None:  # fmt: skip
    """The reconciler for a pod group: its Workload is the one named after the group
    (``FindMatchingWorkloads``), else, the group not finished and complete, the one
    ``ConstructComposableWorkload`` makes (written over the one named after the group when
    that one does not match, the group is suspended and it holds no quota:
    ``updateWorkloadToMatchJob``; when Kueue cannot construct it, that one stays)."""
    key = f"{job.namespace}/{job.name}"
    _group_reconcile(job, res, jin, by_name, now=now, wpcs=wpcs, limits=limits, runtime_classes=runtime_classes)
    if not any(p.gated or p.terminated for p in job.members):
        _stop_note(res, job.label, by_name)
    if posted := [p.key for p in job.members if p.posted_hash]:
        res.unmodelled.append(
            f"{job.label}: the role hash of manifest(s) {', '.join(posted)} (the podSet name Kueue gives their role) is "
            "computed on the pod as posted; the API server's admission plugins that run before Kueue's webhook are not "
            "applied (Priority: spec.priority from the PriorityClass or the global default; DefaultTolerationSeconds: "
            "the not-ready / unreachable tolerations; LimitRanger: LimitRange defaults; RuntimeClass: overhead), so "
            "Kueue's hash may differ")  # fmt: skip
    if res.replaces:
        why, _ = _group_not_equivalent(job, by_name[key])
        if res.workload is not None and (total := group_total_count(job.members[0])[0]) is not None \
                and _finished(job, total):  # fmt: skip
            res.workload, res.replaces = None, ""  # (then step 3 of the reconciler: the group has finished)
            res.drop[key] = (f"Kueue rewrites its spec to its pod group's ({why}: updateWorkloadToMatchJob), then "
                             "finishes it, as the group has finished")  # fmt: skip
            res.note = "the pod group has finished: Kueue finishes its Workload"
        elif res.workload is not None:
            _rewrites(res, key, job.label, why)
        else:
            res.replaces = ""
            res.note += f" (its Workload {key}, not matching it ({why}), stays as it is)"


def _stop_note(res: jobs.Outcome, label: str, by_name: dict[str, dict]) -> None:
    """Pods not suspended (``IsSuspended``: none gated nor terminated) without an admitted
    Workload: Kueue's ``Stop`` marks them ``TerminationTarget`` and deletes them (not
    admitted, or no matching Workload: before it creates one)."""
    if res.existing and _wl_condition(by_name[res.existing], "Admitted"):
        return
    res.unmodelled.append(f"{label} is not gated and has no admitted Workload: Kueue stops it (Stop: the pods get "
                              "the TerminationTarget condition and are deleted) until its Workload is admitted; their "
                              "current placement is not released here")  # fmt: skip


def _rewrites(res: jobs.Outcome, key: str, label: str, why: str) -> None:
    res.replaces = key
    res.unmodelled.append(f"Workload {key}: Kueue rewrites its spec to its suspended {label}'s ({why}): answered "
                          "with the spec Kueue constructs (updateWorkloadToMatchJob)")  # fmt: skip


def _group_reconcile(job: PodJob, res: jobs.Outcome, jin: jobs.JobInput, by_name: dict[str, dict], *, now: float,
                     wpcs: dict[str, int], limits: dict[str, limitrange.Summary],
                     runtime_classes: dict[str, dict[str, str] | None]) -> None:  # fmt: skip
    """:func:`_group` but the rewrite (``res.replaces`` set: the Workload to rewrite)."""
    members, key = job.members, f"{job.namespace}/{job.name}"
    first = members[0]
    prebuilt, _ = jobs.prebuilt_name(job)
    if prebuilt:
        _group_prebuilt(job, res, by_name, prebuilt)
        return
    total, err = group_total_count(first)
    wl = by_name.get(key)
    if wl is not None:
        meta = wl.get("metadata") if isinstance(wl.get("metadata"), dict) else {}
        ann = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
        if jin.validate_group_owner and ann.get(IS_GROUP_WORKLOAD) != "true":  # PodIntegrationValidateGroupOwner
            res.note = (f"the snapshot's Workload {key} is not a pod group workload (no {IS_GROUP_WORKLOAD} annotation): "
                        "Kueue refuses to adopt it, the group stays gated")  # fmt: skip
            return
        why, kept = _group_not_equivalent(job, wl)
        if why and any(p.gated or p.terminated for p in members) and not jobs._quota_reserved(wl):
            res.replaces = key  # (IsSuspended: a pod of the group gated or terminated; the Workload holds no quota)
        elif why:
            res.drop[key] = f"Kueue deletes it: {why}"
        elif _finished(job, total):
            res.drop[key] = f"Kueue finishes it, as its pod group {key} has finished"
            res.note = "the pod group has finished: Kueue finishes its Workload"
            return
        else:
            res.existing = key
            res.gated_by = job.annotations.get(ADMISSION_GATED_BY, "")
            _gate_note(res, f"pod group {key}")
            kept_ids = {id(p) for p in kept}
            excess = [p.key for p in members if p.runnable_or_succeeded and id(p) not in kept_ids]
            if excess:
                res.unmodelled.append(f"pod group {key}: {len(excess)} excess pod(s) past its Workload's podSet counts "
                                      f"({', '.join(excess)}): Kueue deletes them (youngest last)")  # fmt: skip
            return
    # (a rewrite is ensureOneWorkload's updateWorkloadToMatchJob: constructed whether the group
    # has finished or has active pods; those two checks are handleJobWithNoWorkload's)
    if not res.replaces and total is not None and _finished(job, total):
        res.note = "the pod group has finished: Kueue creates no Workload for it"
        return
    if not res.replaces and any(p.is_active(now, jin.fast_release) for p in members):  # handleJobWithNoWorkload waits
        res.note = "it has running pods without a Workload: Kueue waits for them to end before creating its Workload"
        return
    if total is None:
        res.note = f"Kueue cannot compose its Workload: {err}"
        return
    if (why := _pod_index_error(first, total)) is not None:
        res.note = f"Kueue cannot compose its Workload: {why}"
        return
    active = [p for p in members if p.runnable_or_succeeded]
    fast = first.annotations.get(FAST_ADMISSION) == "true"
    if not fast and len(active) < total:
        res.note = f"'{job.name}' group has fewer runnable pods than expected ({len(active)} of {total}): Kueue waits"
        return
    queue = first.labels.get(jobs.QUEUE_LABEL, "")
    for p in members:
        if p.phase == "Failed":
            continue
        if p.labels.get(jobs.QUEUE_LABEL, "") != queue:
            res.note = (f"pods '{first.name}' and '{p.name}' has different queue names: {queue}!="
                        f"{p.labels.get(jobs.QUEUE_LABEL, '')} (an unretryable error: Kueue creates no Workload)")  # fmt: skip
            return
        tc, err = jobs.go_atoi(p.annotations.get(TOTAL_COUNT, ""))
        if tc is None:
            res.note = (f"failed to extract '{TOTAL_COUNT}' annotation from the pod '{p.name}': {err} (Kueue retries; "
                        "it creates no Workload)")  # fmt: skip
            return
        if tc != total:
            res.note = (f"pods '{first.name}' and '{p.name}' has different '{TOTAL_COUNT}' values: {total}!={tc} (an "
                        "unretryable error: Kueue creates no Workload)")  # fmt: skip
            return
    if len(active) > total:
        kept = _sort_active(active)
        excess = [p.key for p in kept[total:]]
        res.unmodelled.append(f"pod group {key}: {len(excess)} excess pod(s) ({', '.join(excess)}) Kueue deletes "
                              "(youngest last); the Workload counts the others")  # fmt: skip
        active = kept[:total]
    if fast:
        count = gostrconv.go_int32(total)  # (Count = int32(groupTotalCount))
        if count < 0 or not active:
            res.note = ("failed to find a runnable pod in the group" if not active else
                        f"its {TOTAL_COUNT} {total} makes podSet count {count} (an int32): the Workload CRD (count "
                        "minimum 0) refuses Kueue's create")  # fmt: skip
            return
        sources = [_source(active[0], active[0].role(), count)]
    else:
        sources = group_pod_sets(active)
    if len(sources) > MAX_POD_SETS:
        res.note = f"pod group can't include more than {MAX_POD_SETS} roles"
        return
    job.sources = sources
    if _construct(job, job.name, res, now=now, wpcs=wpcs, pcs=jin.pod_priority_classes, limits=limits,
                  runtime_classes=runtime_classes, group=True) and not (res.replaces and _finished(job, total)):  # fmt: skip
        _gate_note(res, f"pod group {key}")  # (a finished group's rewritten Workload is finished: :func:`_group`)
    for what, cond in ((SERVING, first.annotations.get(SERVING) == "true"),
                       (RETRIABLE, any(p.annotations.get(RETRIABLE) == "false" for p in members))):  # fmt: skip
        if cond:
            res.unmodelled.append(f"pod group {key}: {what} is read only for when the group finishes; replacement "
                                  "pods and reclaimable pods are not modelled")  # fmt: skip


def _finished(job: PodJob, total: int | None) -> bool:
    """``Finished`` of a group: not serving, and all succeeded (total count), or none
    active while a pod is unretriable (``retriable-in-group: "false"``)."""
    first = job.members[0]
    if first.annotations.get(SERVING) == "true" or total is None:
        return False
    succeeded = sum(p.phase == "Succeeded" for p in job.members)
    active = any(not p.terminated for p in job.members)
    unretriable = any(p.annotations.get(RETRIABLE) == "false" for p in job.members)
    return succeeded == total or (not active and unretriable)


def _group_not_equivalent(job: PodJob, wl: dict) -> tuple[str, list[Pod]]:
    """``FindMatchingWorkloads`` of a group: why its Workload is not the group's ("" when it
    is): maximumExecutionTimeSeconds; each of its podSets keeps at most its count of the
    role's runnable pods (and of its inactive ones what the count leaves); the kept pods'
    podSets must each be in the Workload, in order, at no higher a count (unless finished).
    Also the kept pods."""
    spec = wl.get("spec") if isinstance(wl.get("spec"), dict) else {}
    have_max, want_max = spec.get("maximumExecutionTimeSeconds"), jobs.max_exec_seconds(job)
    if (-1 if have_max is None else have_max) != (-1 if want_max is None else want_max):
        return f"its maximumExecutionTimeSeconds is {have_max}, the group's {jobs.MAX_EXEC_LABEL} label makes {want_max}", []
    pod_sets = [ps for ps in (spec.get("podSets") if isinstance(spec.get("podSets"), list) else []) if isinstance(ps, dict)]
    roles = {p.key: p.role() for p in job.members}
    kept: list[Pod] = []
    for ps in pod_sets:
        name, count = ps.get("name", "main"), ps.get("count", 1)
        count = count if isinstance(count, int) else 1
        act = [p for p in job.members if p.runnable_or_succeeded and roles[p.key] == name]
        ina = [p for p in job.members if not p.runnable_or_succeeded and roles[p.key] == name]
        kept += _sort_active(act)[:count]
        kept += ina[:max(0, len(ina) - min(len(ina), len(ina) + len(act) - count))]
    if not kept:
        return "none of the group's pods has a role of its podSets", kept
    return _pod_sets_differ(wl, pod_sets, group_pod_sets(kept)), kept


def _pod_sets_differ(wl: dict, pod_sets: list[dict], want: list[jobs.Source]) -> str:
    """``equivalentToWorkload``'s podSet check: why the Workload's podSets do not hold the
    group's (each of ``want`` in order, at no smaller a count unless it has finished), ""."""
    finished = _wl_finished(wl)
    if not finished and len(pod_sets) < len(want):
        return f"it has {len(pod_sets)} podSets, the group's pods make {len(want)}"
    j = -1
    for src in want:
        j += 1
        while j < len(pod_sets) and pod_sets[j].get("name", "main") != src.name:
            j += 1
        if j == len(pod_sets):
            return f"it has no podSet {src.name!r} (a role of the group's pods)"
        c = pod_sets[j].get("count", 1)
        if not finished and isinstance(c, int) and c < src.count:
            return f"its podSet {src.name!r} counts {c}, the group has {src.count} such pods"
    return ""


def _group_prebuilt(job: PodJob, res: jobs.Outcome, by_name: dict[str, dict], prebuilt: str) -> None:
    """``ensureOneWorkload`` for a group naming a prebuilt Workload: that Workload or none
    (Kueue creates none); one controlled by another object is ignored; out of sync with
    the group (``EquivalentToWorkload``: ``constructGroupPodSets`` of all its pods against its
    podSets; its name is the prebuilt one, which ``workloadName`` answers) it is finished
    (OutOfSync); a finished group finishes it. With fast admission an invalid total count or
    no runnable pod is an error of the check: the Workload stays as it is."""
    key, first = f"{job.namespace}/{prebuilt}", job.members[0]
    wl = by_name.get(key)
    if wl is None:
        res.note = f"its prebuilt Workload {key} is not in the snapshot (Kueue creates none, the group stays gated)"
        return
    meta = wl.get("metadata") if isinstance(wl.get("metadata"), dict) else {}
    ctrl = jobs._controller(meta.get("ownerReferences"))
    if ctrl is not None and ctrl.get("uid") != first.uid:
        res.note = f"its prebuilt Workload {key} is controlled by another object (Kueue ignores it)"
        return
    total, err = group_total_count(first)
    runnable = [p for p in job.members if p.runnable_or_succeeded]
    if first.annotations.get(FAST_ADMISSION) == "true":  # (constructGroupPodSetsFast: errors, not out of sync)
        fails = err if total is None else "" if runnable else "failed to find a runnable pod in the group"
        if fails:
            res.existing = key
            res.unmodelled.append(f"{job.label}: Kueue's in-sync check of its prebuilt Workload {key} fails ({fails}): "
                                  "ensureOneWorkload returns the error on every reconcile, so that Workload stays as it "
                                  "is (answered here as it is) and the pods are never ungated")  # fmt: skip
            return
        want = [_source(runnable[0], runnable[0].role(), gostrconv.go_int32(total or 0))]
    else:  # (constructGroupPodSets: no pods make no podSets, which any Workload holds)
        want = group_pod_sets(runnable)
    spec = wl.get("spec") if isinstance(wl.get("spec"), dict) else {}
    sets = [ps for ps in (spec.get("podSets") if isinstance(spec.get("podSets"), list) else []) if isinstance(ps, dict)]
    why = _pod_sets_differ(wl, sets, want)
    if why:
        res.drop[key] = f"Kueue finishes it (OutOfSync): the prebuilt workload is out of sync with its {job.label} ({why})"
        res.note = f"its prebuilt Workload {key} is out of sync with it ({why}): Kueue finishes that Workload"
    elif _finished(job, total):
        res.drop[key] = f"Kueue finishes it, as its {job.label} has finished"
        res.note = "the pod group has finished: Kueue finishes its Workload"
    else:
        res.existing = key
        res.gated_by = job.annotations.get(ADMISSION_GATED_BY, "")
        _gate_note(res, job.label)


def _wl_finished(wl: dict) -> bool:
    return _wl_condition(wl, "Finished")


def _wl_condition(wl: dict, kind: str) -> bool:
    status = wl.get("status") if isinstance(wl.get("status"), dict) else {}
    conds = status.get("conditions") if isinstance(status.get("conditions"), list) else []
    return any(isinstance(c, dict) and c.get("type") == kind and c.get("status") == "True" for c in conds)


def _construct(job: PodJob, name: str, res: jobs.Outcome, *, now: float, wpcs: dict[str, int],
               pcs: dict[str, tuple[int, bool]], limits: dict[str, limitrange.Summary],
               runtime_classes: dict[str, dict[str, str] | None], group: bool) -> bool:  # fmt: skip
    """``ConstructWorkload`` (a pod) / ``NewGroupWorkload`` (a group) and ``prepareWorkload``:
    the podSets of :attr:`job.sources`, the queue name and priority class of the (first)
    pod; False (``res.note`` says why) when Kueue makes none."""
    prio = jobs._priority(job, res, wpcs, pcs)
    if prio is None:
        return False
    priority, ref = prio
    pod_sets = []
    for i, src in enumerate(job.sources):
        topology, err = jobs.topology_request(job, src)
        if err:
            res.note = f"its topology annotations do not parse ({err}): Kueue cannot build its Workload"
            return False
        if topology is not None and topology.slice_size is not None and topology.slice_size < 1:
            res.note = f"its {jobs.ANN_SLICE_SIZE} annotation is {topology.slice_size}: the Workload CRD refuses Kueue's create"
            return False
        pod_ptr = str(src.path[0])
        fake = join_pointer(pod_ptr, "\x00")
        try:
            pod_sets.append(_pod_set({"name": src.name, "count": src.count, "template": {"spec": src.template["spec"]}}, fake,
                                     job.ident, limits.get(job.namespace), runtime_classes, topology=topology, index=i,
                                     template_limits=False))  # fmt: skip  # (a Pod: the API server defaulted its requests)
        except InputError as e:  # (read as the pod's spec: the error is at the pod's field)
            e.pointer = e.pointer.replace(join_pointer(fake, "template"), pod_ptr, 1).replace(fake, pod_ptr, 1)
            raise
    created = (r.timestamp(job.created_raw, job.ptr("metadata", "creationTimestamp"), job.ident)
               if job.created_raw is not None else now)  # fmt: skip
    res.workload = Workload(
        version="v1beta2", namespace=job.namespace, name=name, uid="", created=now, tie=(created, job.namespace, job.name),
        queue_name=job.labels.get(jobs.QUEUE_LABEL, ""), priority=priority, priority_class=ref, active=True, admitted=False,
        pod_sets=pod_sets, admission=None, pointer=job.pointer, ident=job.ident, owner=owner_ref(job, True),
        pod_sets_pointer=job.ptr("spec"), gated_by=job.annotations.get(ADMISSION_GATED_BY, ""),
    )  # fmt: skip
    if not group and not job.uid:
        res.unmodelled.append(f"Pod {job.key} has no metadata.uid (a manifest): its Workload's name hashes an empty uid; "
                              "the API server assigns the uid Kueue would hash")  # fmt: skip
    return True
