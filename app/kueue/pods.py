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
canonical string (:func:`quantity_string`), strings with ``<``, ``>``, ``&``, U+2028 and
U+2029 escaped. Fields Go does not decode into those types are dropped; a field of the
wrong JSON type is a 422 at its pointer.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest.quantity import parse_quantity

ROLE_HASH_ANNOTATION = "kueue.x-k8s.io/role-hash"

# -- Go's encoding/json for the types of SpecShape -------------------------------------------
# a struct: its fields in declaration order, (json name, type, omitempty); types: "string",
# "int", "*string", "*int", "[]string", "map", "quantities" (a ResourceList), "*Name" (a
# pointer to struct Name), "[]Name" (a slice of struct Name), "Name" (a struct value)
_STRUCTS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "Affinity": (("nodeAffinity", "*NodeAffinity", True), ("podAffinity", "*PodAffinity", True),
                 ("podAntiAffinity", "*PodAffinity", True)),
    "NodeAffinity": (("requiredDuringSchedulingRequiredDuringExecution", "*NodeSelector", True),
                     ("requiredDuringSchedulingIgnoredDuringExecution", "*NodeSelector", True),
                     ("preferredDuringSchedulingIgnoredDuringExecution", "[]PreferredSchedulingTerm", True)),
    "NodeSelector": (("nodeSelectorTerms", "[]NodeSelectorTerm", False),),
    "NodeSelectorTerm": (("matchExpressions", "[]NodeSelectorRequirement", True),
                         ("matchFields", "[]NodeSelectorRequirement", True)),
    "NodeSelectorRequirement": (("key", "string", False), ("operator", "string", False), ("values", "[]string", True)),
    "PreferredSchedulingTerm": (("weight", "int", False), ("preference", "NodeSelectorTerm", False)),
    "PodAffinity": (("requiredDuringSchedulingRequiredDuringExecution", "[]PodAffinityTerm", True),
                    ("requiredDuringSchedulingIgnoredDuringExecution", "[]PodAffinityTerm", True),
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
    whose container ports get the API server's default protocol (``TCP``) before Kueue's
    webhook hashes it."""

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


def quantity_string(raw: Any, ptr: str, ident: dict[str, str]) -> str:
    """``Quantity.String()`` of a quantity as Go decodes it (``CanonicalizeBytes``): DecimalSI
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
