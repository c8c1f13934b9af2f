"""Kueue's AppWrapper integration (``pkg/controller/jobs/appwrapper``), with the AppWrapper
utilities it calls (``github.com/project-codeflare/appwrapper/pkg/utils`` v1.2.2, vendored by
Kueue): which podSets an AppWrapper's components make and the pod templates Kueue gives them.

``PodSets()`` = ``GetComponentPodSpecs``: for each component, the podSets of
``status.componentStatus`` when that list is as long as ``spec.components``
(``EnsureComponentStatusInitialized``), else the component's declared ``podSets``, else those
``InferPodSets`` finds in the component's object (batch/v1 Job, JobSet, PyTorchJob, RayCluster,
RayJob, Pod, Deployment, StatefulSet); a podSet whose path does not lead to a pod template is
left out (``GetComponentPodSpecs`` skips it), one an inferred podSet names is an error of
``PodSets()``. PodSet ``i`` (over all components) is named ``<appwrapper>-<i>``, counts its
``replicas`` (default 1), and its template is ``GetPodTemplateSpec``'s copy."""

from __future__ import annotations

import re
from typing import Any

from app.ingest import gostrconv
from app.ingest.quantity import parse_quantity

#: the podSet annotations AppWrapper's inference sets (``PodSetAnnotationTAS*``)
POD_INDEX_LABEL = "workload.codeflare.dev.appwrapper/tas-pod-index-label"
SUB_GROUP_INDEX_LABEL = "workload.codeflare.dev.appwrapper/tas-sub-group-index-label"
SUB_GROUP_COUNT = "workload.codeflare.dev.appwrapper/tas-sub-group-count"

#: v1.PodSpec's JSON fields (FromUnstructuredWithValidation refuses any other)
POD_SPEC_FIELDS = frozenset((
    "volumes", "initContainers", "containers", "ephemeralContainers", "restartPolicy", "terminationGracePeriodSeconds",
    "activeDeadlineSeconds", "dnsPolicy", "nodeSelector", "serviceAccountName", "serviceAccount",
    "automountServiceAccountToken", "nodeName", "hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace",
    "securityContext", "imagePullSecrets", "hostname", "subdomain", "affinity", "schedulerName", "tolerations",
    "hostAliases", "priorityClassName", "priority", "dnsConfig", "readinessGates", "runtimeClassName",
    "enableServiceLinks", "preemptionPolicy", "overhead", "topologySpreadConstraints", "setHostnameAsFQDN", "os",
    "hostUsers", "schedulingGates", "resourceClaims", "resources", "hostnameOverride", "schedulingGroup",
))  # fmt: skip
#: (the vendored k8s.io/api core/v1 types.go: ``workloadRef`` is commented out, replaced by
#: ``schedulingGroup`` in Kubernetes 1.36)
#: v1.Container's JSON fields
CONTAINER_FIELDS = frozenset((
    "name", "image", "command", "args", "workingDir", "ports", "envFrom", "env", "resources", "resizePolicy",
    "restartPolicy", "restartPolicyRules", "volumeMounts", "volumeDevices", "livenessProbe", "readinessProbe",
    "startupProbe", "lifecycle", "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy",
    "securityContext", "stdin", "stdinOnce", "tty",
))  # fmt: skip


class PathError(Exception):
    """``getValueAtPath``'s error (its message as Go formats it)."""


def _atoi(s: str) -> int | None:
    """``strconv.Atoi`` (None where it errs)."""
    v, err = gostrconv.parse_int_err(s)
    return None if err else v


def value_at(obj: Any, path: str) -> Any:
    """``getValueAtPath``: ``template`` is the component's object; ``.key`` and ``[i]`` walk it."""
    processed = "template"
    if not path.startswith(processed):
        raise PathError("first element of the path must be 'template'")
    remaining = path[len(processed):]
    cursor = obj
    while remaining:
        if remaining.startswith("["):
            end = remaining.find("]")
            if end < 0:
                raise PathError(f"at path position '{processed}' invalid array index '{remaining}'")
            index = _atoi(remaining[1:end])
            if index is None:
                raise PathError(f"at path position '{processed}' invalid index expression '{remaining[1:end]}'")
            if not isinstance(cursor, list):
                raise PathError(f"at path position '{processed}' found non-array value")
            if index < 0 or index >= len(cursor):
                raise PathError(f"at path position '{processed}' out of bounds index '{index}'")
            cursor = cursor[index]
            processed += remaining[:end]
            remaining = remaining[end + 1:]
        elif remaining.startswith("."):
            remaining = remaining[1:]
            processed += "."
            end = len(remaining)
            dot = remaining.find(".")
            if dot > 0:
                end = dot
            bracket = remaining.find("[")
            if 0 < bracket < end:
                end = bracket
            key = remaining[:end]
            if not isinstance(cursor, dict):
                raise PathError(f"at path position '{processed}' non-map value")
            if key not in cursor:
                raise PathError(f"at path position '{processed}' missing field '{key}'")
            cursor = cursor[key]
            remaining = remaining[len(key):]
            processed += key
        else:
            raise PathError(f"at path position '{processed}' invalid path element '{remaining}'")
    return cursor


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def get_replicas(obj: Any, path: str) -> int | None:
    """``GetReplicas``: the integer at ``path`` as int32, None where Go errs."""
    try:
        v = value_at(obj, path)
    except PathError:
        return None
    return gostrconv.go_int32(v) if _is_int(v) else None


def raw_template(obj: Any, path: str) -> dict:
    v = value_at(obj, path)
    if not isinstance(v, dict):
        raise PathError(f"at path position '{path}' non-map value")
    return v


def _infer_replicas(obj: Any, path: str) -> int:
    """``inferReplicas``: 1 for no path or a missing / null value, an int32, else an error."""
    if not path:
        return 1
    index = path.rfind(".")
    parent = raw_template(obj, path[:index]) if index >= 0 else obj
    v = parent.get(path[index + 1:]) if isinstance(parent, dict) else None
    if v is None:
        return 1
    if _is_int(v):
        return gostrconv.go_int32(v)
    raise PathError(f"at path position '{path}' non-int value {_go_value(v)}")


def _go_value(v: Any) -> str:
    """A JSON value as Go's ``%v`` prints its unstructured form (enough for scalars)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v).rstrip("0").rstrip(".") if v == int(v) and abs(v) < 1e21 else repr(v)
    return str(v)


def template_spec_error(obj: Any, path: str) -> str:
    """What ``GetPodTemplateSpec`` errs with at ``path`` ("" when it succeeds). The strict
    decoding of the spec as a v1.PodSpec is modelled on the field names of PodSpec and of its
    containers and init containers (not on the values' types deeper)."""
    try:
        cand = raw_template(obj, path)
    except PathError as e:
        return str(e)
    spec = cand.get("spec")
    if not isinstance(spec, dict):
        return f"content at {path} does not contain a spec"
    unknown = sorted(k for k in spec if k not in POD_SPEC_FIELDS)
    for key in ("containers", "initContainers"):
        items = spec.get(key)
        if items is not None and not isinstance(items, list):
            return f"content at {path}.spec not parseable as a v1.PodSpec: {key} is not a list"
        for i, c in enumerate(items or ()):
            if not isinstance(c, dict):
                return f"content at {path}.spec not parseable as a v1.PodSpec: {key}[{i}] is not an object"
            unknown += sorted(f"{key}[{i}].{k}" for k in c if k not in CONTAINER_FIELDS)
            if not unknown and (bad := _resources_error(c.get("resources"), f"{key}[{i}].resources")):
                return f"content at {path}.spec not parseable as a v1.PodSpec: {bad}"
    if unknown:
        return f"content at {path}.spec not parseable as a v1.PodSpec: unknown field(s) {', '.join(unknown)}"
    if bad := _resource_list_error(spec.get("overhead"), "overhead"):
        return f"content at {path}.spec not parseable as a v1.PodSpec: {bad}"
    return ""


def _resources_error(res: Any, where: str) -> str:
    """A container's ``resources`` as the strict decoding reads its ``requests`` and
    ``limits`` ("" when they decode)."""
    if res is None:
        return ""
    if not isinstance(res, dict):
        return f"{where} is not an object"
    for key in ("requests", "limits"):
        if bad := _resource_list_error(res.get(key), f"{where}.{key}"):
            return bad
    return ""


def _resource_list_error(rl: Any, where: str) -> str:
    """A ``ResourceList``: an object of quantities ("" when it decodes)."""
    if rl is None:
        return ""
    if not isinstance(rl, dict):
        return f"{where} is not an object"
    for name, q in rl.items():
        try:
            parse_quantity(q)
        except (ValueError, TypeError, OverflowError):
            return f"{where}[{name}]: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    return ""


_TAG = re.compile(r"[\w][\w.-]{0,127}", re.ASCII)
_PATH = re.compile(r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*", re.ASCII)
_DIGEST = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}", re.ASCII)


def image_tag(image: str) -> str:
    """``getImageTag``: the reference's tag, ``latest`` when it has neither tag nor digest,
    "" when ``ParseNormalizedNamed`` refuses it (a repository path that is not lower case,
    a malformed tag or digest; the domain's own grammar is not checked)."""
    rest, digest = image, ""
    if "@" in rest:
        rest, digest = rest.split("@", 1)
        if not _DIGEST.fullmatch(digest):
            return ""
    tag = ""
    slash = rest.rfind("/")
    colon = rest.rfind(":")
    if colon > slash:
        rest, tag = rest[:colon], rest[colon + 1:]
        if not _TAG.fullmatch(tag):
            return ""
    first, sep, remainder = rest.partition("/")
    has_domain = sep and (any(ch in first for ch in ".:") or first == "localhost" or first.lower() != first)
    if not _PATH.fullmatch(remainder if has_domain else rest):
        return ""
    if not tag and not digest:
        return "latest"
    return tag


NANOS_PER_MILLI = 10**6


def round_up_milli(rl: Any) -> Any:
    """``defaultResourceList``: each quantity rounded up (away from zero) to milli-units
    (``RoundUp(-3)``), written ``<n>m`` when that changes it; a value that is no quantity
    is left as it is (the pod spec's reader refuses it)."""
    if not isinstance(rl, dict):
        return rl
    out: dict[str, Any] = {}
    for name, v in rl.items():
        try:
            nanos = parse_quantity(v)
        except ValueError:
            out[name] = v
            continue
        q, rem = divmod(abs(nanos), NANOS_PER_MILLI)
        milli = (q + (1 if rem else 0)) * (1 if nanos >= 0 else -1)
        out[name] = v if not rem else f"{milli}m"
    return out


def _copy_containers(src: list) -> list[dict]:
    out = []
    for c in src:
        d: dict[str, Any] = {"name": c.get("name", "")}
        for k in ("image", "command", "args"):
            if c.get(k):
                d[k] = c[k]
        res = c.get("resources") if isinstance(c.get("resources"), dict) else {}
        kept = {k: round_up_milli(res[k]) for k in ("requests", "limits") if res.get(k)}
        d["resources"] = kept
        d["terminationMessagePath"] = c.get("terminationMessagePath") or "/dev/termination-log"
        d["terminationMessagePolicy"] = c.get("terminationMessagePolicy") or "File"
        image = c.get("image") if isinstance(c.get("image"), str) else ""
        d["imagePullPolicy"] = c.get("imagePullPolicy") or ("Always" if image_tag(image) == "latest" else "IfNotPresent")
        if c.get("securityContext") is not None:
            d["securityContext"] = c["securityContext"]
        out.append(d)
    return out


def pod_template(obj: Any, path: str) -> dict:
    """``GetPodTemplateSpec``'s copy of the template at ``path`` (which passed
    :func:`template_spec_error`): its string labels and annotations; of its spec the
    containers' and init containers' name, image, command, args, resources, termination
    message path and policy, image pull policy and security context (quantities rounded up
    to milli-units: :func:`round_up_milli`; an init container's
    ``restartPolicy`` is not copied: a sidecar becomes a plain init container), the pod's
    restart policy, DNS policy, node selector, node name, security context, affinity,
    scheduler name, tolerations, priority class name, preemption policy, overhead and topology
    spread constraints, each defaulted as the copy defaults it; ``terminationGracePeriodSeconds``
    is 30 when the source has none and absent when it has one."""
    cand = raw_template(obj, path)
    spec = cand["spec"]
    meta: dict[str, Any] = {}
    if isinstance(cand.get("metadata"), dict):
        for k in ("labels", "annotations"):
            m = cand["metadata"].get(k)
            if isinstance(m, dict):
                meta[k] = {key: v for key, v in m.items() if isinstance(v, str)}
    dst: dict[str, Any] = {}
    if spec.get("initContainers"):
        dst["initContainers"] = _copy_containers(spec["initContainers"])
    dst["containers"] = _copy_containers(spec.get("containers") or [])
    dst["restartPolicy"] = spec.get("restartPolicy") or "Always"
    if spec.get("terminationGracePeriodSeconds") is None:
        dst["terminationGracePeriodSeconds"] = 30
    dst["dnsPolicy"] = spec.get("dnsPolicy") or "ClusterFirst"
    for k in ("nodeSelector", "nodeName"):
        if spec.get(k):
            dst[k] = spec[k]
    dst["securityContext"] = spec["securityContext"] if spec.get("securityContext") is not None else {}
    if spec.get("affinity") is not None:
        dst["affinity"] = spec["affinity"]
    dst["schedulerName"] = spec.get("schedulerName") or "default-scheduler"
    for k in ("tolerations", "priorityClassName"):
        if spec.get(k):
            dst[k] = spec[k]
    dst["preemptionPolicy"] = spec.get("preemptionPolicy") or "PreemptLowerPriority"
    if spec.get("overhead"):
        dst["overhead"] = round_up_milli(spec["overhead"])
    if spec.get("topologySpreadConstraints"):
        dst["topologySpreadConstraints"] = spec["topologySpreadConstraints"]
    return {"metadata": meta, "spec": dst}


def _gvk(obj: dict) -> tuple[str, str, str]:
    av = obj.get("apiVersion") if isinstance(obj.get("apiVersion"), str) else ""
    group, _, version = av.rpartition("/")
    return group, version, obj.get("kind") if isinstance(obj.get("kind"), str) else ""


def _ray(obj: Any, prefix: str) -> list[dict]:
    pss = [{"replicas": 1, "path": prefix + "headGroupSpec.template"}]
    try:
        workers = value_at(obj, prefix + "workerGroupSpecs")
    except PathError:
        return pss
    if isinstance(workers, list):
        for i in range(len(workers)):
            wp = f"{prefix}workerGroupSpecs[{i}]."
            try:
                value_at(obj, wp + "template")
            except PathError:
                continue
            pss.append({"replicas": _infer_replicas(obj, wp + "replicas"), "path": wp + "template"})
    return pss


def infer_pod_sets(obj: dict) -> list[dict]:
    """``InferPodSets`` (raises :class:`PathError` with Go's message where it errs)."""
    gvk = _gvk(obj)
    pss: list[dict] = []
    if gvk == ("batch", "v1", "Job"):
        replicas = 1
        if (p := get_replicas(obj, "template.spec.parallelism")) is not None:
            replicas = p
        if (c := get_replicas(obj, "template.spec.completions")) is not None and c < replicas:
            replicas = c
        pss.append({"replicas": replicas, "path": "template.spec.template",
                    "annotations": {POD_INDEX_LABEL: "batch.kubernetes.io/job-completion-index"}})  # fmt: skip
    elif gvk == ("jobset.x-k8s.io", "v1alpha2", "JobSet"):
        try:
            jobs = value_at(obj, "template.spec.replicatedJobs")
        except PathError:
            jobs = None
        for i in range(len(jobs) if isinstance(jobs, list) else 0):
            jp = f"template.spec.replicatedJobs[{i}]."
            try:
                value_at(obj, jp + "template")
            except PathError:
                continue
            count = 1
            if (p := get_replicas(obj, jp + "template.spec.parallelism")) is not None:
                count = p
            if (c := get_replicas(obj, jp + "template.spec.completions")) is not None and c < count:
                count = c
            replicas = get_replicas(obj, jp + "replicas")
            replicas = 1 if replicas is None else replicas
            pss.append({"replicas": gostrconv.go_int32(replicas * count), "path": jp + "template.spec.template",
                        "annotations": {POD_INDEX_LABEL: "batch.kubernetes.io/job-completion-index",
                                        SUB_GROUP_INDEX_LABEL: "jobset.sigs.k8s.io/job-index",
                                        SUB_GROUP_COUNT: str(replicas)}})  # fmt: skip
    elif gvk == ("kubeflow.org", "v1", "PyTorchJob"):
        for rtype in ("Master", "Worker"):
            prefix = f"template.spec.pytorchReplicaSpecs.{rtype}."
            try:
                value_at(obj, prefix + "template")
            except PathError:
                continue
            pss.append({"replicas": _infer_replicas(obj, prefix + "replicas"), "path": prefix + "template",
                        "annotations": {POD_INDEX_LABEL: "training.kubeflow.org/replica-index"}})  # fmt: skip
    elif gvk == ("ray.io", "v1", "RayCluster"):
        pss = _ray(obj, "template.spec.")
    elif gvk == ("ray.io", "v1", "RayJob"):
        pss = _ray(obj, "template.spec.rayClusterSpec.")
    else:
        simple = {("", "v1", "Pod"): ("template", ""),
                  ("apps", "v1", "Deployment"): ("template.spec.template", "template.spec.replicas"),
                  ("apps", "v1", "StatefulSet"): ("template.spec.template", "template.spec.replicas")}  # fmt: skip
        if gvk in simple:
            path, rpath = simple[gvk]
            try:
                value_at(obj, path)
            except PathError:
                pass
            else:
                pss.append({"replicas": _infer_replicas(obj, rpath), "path": path})
    for ps in pss:
        if err := template_spec_error(obj, ps["path"]):
            raise PathError(f"{ps['path']} does not refer to a v1.PodSpecTemplate: {err}")
    return pss


def decode_error(obj: Any) -> str:
    """``UnstructuredJSONScheme.Decode`` of a component's template: an object with a kind
    and an apiVersion (what it errs with, else "")."""
    if not isinstance(obj, dict):
        return "a component's template must be a JSON object"
    if not obj.get("kind"):
        return "Object 'Kind' is missing in the component's template"
    if not obj.get("apiVersion"):
        return "Object 'apiVersion' is missing in the component's template"
    return ""
