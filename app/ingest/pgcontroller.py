"""Volcano's PodGroup controller (``pkg/controllers/podgroup``): the PodGroup it makes for
a pod on its own, and the annotation it puts on the pod.

Volcano's scheduler holds no job for a pod that names no PodGroup (``getJobID`` is "",
``getOrCreateJob`` returns nil): its PodGroup controller (``processNextReq``) takes every
pod whose ``spec.schedulerName`` is one of Volcano's names and whose
``scheduling.k8s.io/group-name`` annotation is empty, whatever its phase, and
(``createNormalPodPGIfNotExist``) makes a PodGroup ``helpers.GeneratePodgroupName`` names
unless one of that name exists (an existing one is not updated), then annotates the pod
with its name. :func:`realize_podgroups` does that work on the snapshot as it is read,
once the objects and the native section are read (as Volcano Jobs' controller,
``app.ingest.vcjob``), so the PodGroups and the pods' group reference are read downstream
exactly as if the snapshot had held them. It runs only where Volcano's scheduler-name model
applies (the ``volcano`` profile, a ``volcano-scheduler.conf``: see :func:`applies`) and only
on Kubernetes pods (the native form's pods on their own keep Gangplank's own meaning).

``buildPodGroupFromPod``, read from ``pg_controller_handler.go``:

- name ``podgroup-<uid of the first ownerReference with controller: true>``, else
  ``podgroup-<pod uid>``; a pod without a uid (a manifest) is given the uid
  ``<namespace>-<name>`` (the convention of Volcano's own test pods, ``util.BuildPod``),
  with a warning;
- minMember 1 unless the owners' ``scheduling.volcano.sh/group-min-member`` annotation
  (``getAnnotationsFromUpperRes``: each ownerReference with a kind and a name, looked up by
  kind — ReplicaSet, DaemonSet, StatefulSet (apps), Job (batch) — and name in the pod's
  namespace, the first owner's value of a key winning; an owner the snapshot lacks is
  skipped, as a failed Get is) reads as a base-10 int32 (``ParseInt``) that is not negative;
- the owners' annotations with prefix ``volcano.sh/`` (``inheritUpperAnnotations``;
  ``--inherit-owner-annotations`` defaults to true), then the pod's preemptable,
  cooldown-time and revocable-zone annotations, its preemptable and cooldown-time labels,
  its jdb-min-available annotation, else its jdb-max-unavailable one;
- priorityClassName the pod's; queue the pod's ``scheduling.volcano.sh/queue-name``
  annotation (else the CRD's default, ``default``); minResources ``CalTaskRequests(pod,
  minMember)`` (the pod's quota usage times minMember: a Succeeded or Failed pod counts
  only ``count/pods``, as ``PodUsageFunc``); networkTopology from the pod's
  ``volcano.sh/network-topology-mode`` (hard or soft, case-insensitive, anything else hard)
  and ``volcano.sh/network-topology-highest-tier`` (``strconv.Atoi``; not a number:
  unset) annotations (``parseNetworkTopologyFromPod``). A negative tier makes a PodGroup
  the CRD refuses (``highestTierAllowed`` minimum 0): that pod's ``Create`` fails, so the
  PodGroup is built by the next pod of its name, which the refused pod then joins (the
  controller retries it and finds the PodGroup); with none, its pods get no PodGroup and
  are held as pods of another scheduler (:data:`~app.model.cluster.VOLCANO_UNGROUPED`):
  Volcano's scheduler never schedules a pod without one.

Decided here (the controller reacts to a pod's creation within milliseconds): the PodGroup
is created when its first pod (earliest ``creationTimestamp``) was, ``options.now`` for a
pod without one, and that pod builds it. Its phase: ``Pending`` while none of its pods was
ever scheduled; a pod on a node (or Running, Succeeded, Failed) means the scheduler took
the PodGroup out of Pending before binding it, and its status update has set the phase
since (``getPodGroupPhase``): ``Running`` with at least minMember of its pods scheduled
(``Completed`` when those are all Succeeded or Failed), else ``Pending`` (a PodGroup below
its minimum goes back to Pending unless it was Inqueue, which one made for pods already
scheduled is not), so enqueue admits it again.

Not modelled (named in the warnings where they apply): the ReplicaSet and StatefulSet
handlers (``addReplicaSet``, ``addStatefulSet``: the WorkLoadSupport gate's
create-or-update on owner events, and the deletion of the PodGroup of one scaled to 0); a
pod of a gang of another API naming a Volcano scheduler (Volcano's controller would give
it a PodGroup of its own: here it stays its gang's).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import kube
from app.ingest import reader as r
from app.ingest.draft import Draft, GroupDraft, GroupRef, PodDraft
from app.ingest.gostrconv import parse_int as go_int  # (strconv.ParseInt(text, 10, bits))
from app.ingest.metalimits import DEFAULT as DEFAULT_LIMITS
from app.ingest.metalimits import MetaLimits, check_object
from app.ingest.numatopology import PodSpecs
from app.ingest.quantity import INT64_MAX
from app.ingest.vcjob import pod_quota_usage
from app.model.cluster import VOLCANO_UNGROUPED, NetworkTopology

PREFIX = "podgroup-"  # batch/v1alpha1 PodgroupNamePrefix
ANNOTATION_PREFIX = "volcano.sh/"  # scheduling/v1beta1 AnnotationPrefix
GROUP_MIN_MEMBER = "scheduling.volcano.sh/group-min-member"
COOLDOWN = "volcano.sh/cooldown-time"
REVOCABLE_ZONE = "volcano.sh/revocable-zone"
JDB_MIN_AVAILABLE = "volcano.sh/jdb-min-available"
JDB_MAX_UNAVAILABLE = "volcano.sh/jdb-max-unavailable"
DEFAULT_QUEUE = "default"  # the PodGroup CRD's default
INT32 = 2**31
INT64 = 2**63
GROUP_AT = join_pointer("", "metadata", "annotations", "scheduling.k8s.io/group-name")  # (after a pod's pointer)
SCHEDULED = ("Running", "Succeeded", "Failed")
COMPLETED = ("Succeeded", "Failed")



def applies(raw_config: Any) -> bool:
    """Volcano's scheduler-name model applies: the ``volcano`` profile or a
    ``volcano-scheduler.conf`` the request writes (``Session._own_schedulers``). A config
    the loader refuses: False (the session refuses it after ingest, as before)."""
    from app.service import config_if_valid  # (the service imports ingest)

    cfg = config_if_valid(raw_config)
    return cfg is not None and (cfg.profile == "volcano" or bool(cfg.raw))


def candidates(d: Draft, names: Iterable[str]) -> list[PodDraft]:
    """The Kubernetes pods naming one of ``names`` in spec.schedulerName (a pod naming none
    is not Volcano's: Kubernetes gives it ``default-scheduler``) and no Volcano PodGroup;
    those with no gang of another API either are the controller's (:func:`_lone`)."""
    wanted = frozenset(n for n in names if n)
    # (one pass; the pods of Volcano PodGroups, the common case, are left out in it)
    named = [p for p in d.pods if p.scheduler in wanted and (p.group is None or p.group.source != "volcano" or not p.group.name)]
    return [p for p in named if p.pointer == "/objects" or p.pointer.startswith("/objects/")]


def _lone(p: PodDraft) -> bool:
    return p.group is None or (p.group.source == "volcano" and not p.group.name)


def realize_podgroups(d: Draft, objects: Any, names: Iterable[str], now: float, raw_config: Any = None,
                      force: bool | None = None, limits: MetaLimits = DEFAULT_LIMITS) -> None:
    """The controller's work on the snapshot (``names``: Volcano's scheduler names; ``now``:
    when a pod without a creationTimestamp was created). ``force``: whether the model
    applies (None: decided from ``raw_config``, only when some pod is a candidate);
    ``limits``: the size limits an owner object read for its annotations obeys, as every
    object read does."""
    if force is False:
        return
    named = candidates(d, names)
    if not named:
        return
    pods = [p for p in named if _lone(p)]
    others = [p for p in named if p.group is not None and p.group.source != "volcano"]
    if not pods and not others:
        return
    if force is None and not applies(raw_config):
        return
    if others:
        p = min(others, key=lambda p: (p.namespace, p.name))
        d.notes.append(f"{len(others)} pod(s) of gangs of another API than Volcano's name a Volcano scheduler and no "
                       f"Volcano PodGroup (e.g. {p.namespace}/{p.name}): Volcano's PodGroup controller would give each a "
                       "PodGroup of its own (not modelled: each stays its gang's)")  # fmt: skip
    if not pods:
        return
    specs = PodSpecs(objects)
    owners = _Owners(d, limits)
    existing = {(g.namespace, g.name): g for g in d.groups if g.source in ("volcano", "native")}
    by_name: dict[tuple[str, str], list[tuple[PodDraft, dict]]] = {}
    uidless: list[PodDraft] = []
    for p in pods:
        o = specs.pod(p.pointer) or {}
        meta = o.get("metadata") if isinstance(o.get("metadata"), dict) else {}
        refs = owner_references(meta, p.pointer, p.ident)
        if not p.uid:
            uidless.append(p)
        by_name.setdefault((p.namespace, podgroup_name(p, refs)), []).append((p, {"meta": meta, "refs": refs}))
    made: list[tuple[str, str]] = []
    joined: list[tuple[str, str]] = []
    refused: list[tuple[str, int]] = []  # (pod, the negative tier its PodGroup would have)
    ungrouped: list[str] = []  # pods left without a PodGroup
    for (ns, name), members in sorted(by_name.items()):
        members.sort(key=lambda m: (m[0].created or now, m[0].namespace, m[0].name))
        g = existing.get((ns, name))
        if g is None:
            for first, raw in members:  # (a Create the API server refuses is retried by the next pod's reconcile)
                tier = refused_tier(pod_annotations(first, raw["meta"]))
                if tier is not None:
                    refused.append((f"{first.namespace}/{first.name}", tier))
                    continue
                g = build_podgroup(first, raw["meta"], raw["refs"], name, owners, [m[0] for m in members], now)
                d.groups.append(g)
                made.append((f"{ns}/{name}", f"{first.namespace}/{first.name}"))
                break
            else:  # (no pod builds a PodGroup the CRD takes: none is made, Volcano never schedules them)
                for p, _ in members:
                    p.scheduler = VOLCANO_UNGROUPED
                    ungrouped.append(f"{p.namespace}/{p.name}")
                continue
        else:
            joined.append((f"{ns}/{name}", f"{members[0][0].namespace}/{members[0][0].name}"))
        source = "native" if g.source == "native" else "volcano"
        for p, _ in members:
            annotate(p, name, source)
    n_pods = len(pods) - len(ungrouped)
    if made:
        pg, pod = made[0]
        d.notes.append(f"Volcano's PodGroup controller made {len(made)} PodGroup(s) for {n_pods} pod(s) on their own "
                       f"naming a Volcano scheduler (e.g. {pg} for {pod}; minMember 1 unless the owners' "
                       f"{GROUP_MIN_MEMBER} says more, created with their first pod): each is read as Volcano reads a "
                       "PodGroup (one still Pending must be admitted by enqueue)")  # fmt: skip
    if joined:
        pg, pod = joined[0]
        d.notes.append(f"{len(joined)} PodGroup(s) of the snapshot are those Volcano's PodGroup controller names for pods "
                       f"on their own (e.g. {pg} for {pod}): the pods join them, unchanged (createNormalPodPGIfNotExist)")  # fmt: skip
    if refused:
        pod, tier = min(refused)
        d.notes.append(f"{len(refused)} pod(s) on their own naming a Volcano scheduler have a negative "
                       f"{kube.VOLCANO_NT_TIER} annotation (e.g. {pod}: {tier}): the PodGroup Volcano's controller builds "
                       "of such a pod has a networkTopology.highestTierAllowed its CRD refuses (minimum 0), so its Create "
                       f"fails; {len(ungrouped)} pod(s) (those whose PodGroup no other pod of the same owner built) are "
                       "left without a PodGroup and Volcano never schedules them, the others join the PodGroup another "
                       "pod built once the controller retries")  # fmt: skip
    if uidless:
        p = min(uidless, key=lambda p: (p.namespace, p.name))
        d.notes.append(f"{len(uidless)} pod(s) on their own naming a Volcano scheduler have no metadata.uid (never created; "
                       f"e.g. {p.namespace}/{p.name}): the PodGroup Volcano's controller names podgroup-<uid> is named "
                       f"podgroup-<namespace>-<name> here")  # fmt: skip
    owners.account(d)


class _Owners:
    """The owner objects the snapshot holds (those of ``Draft.unread_objects`` whose kind is
    one of ``kube.OWNER_KINDS``), by (kind, namespace, name); their annotations read when a
    pod's PodGroup is built."""

    def __init__(self, d: Draft, limits: MetaLimits) -> None:
        self.limits = limits
        self.objects: dict[tuple[str, str, str], tuple[dict, str, str]] = {}
        for label, o, p in d.unread_objects:
            if (kube.api_group(label.split(" ", 1)[0]), o.get("kind")) not in kube.OWNER_KINDS:
                continue
            meta = o.get("metadata")
            if not isinstance(meta, dict):
                continue  # (not found: Volcano's Get would not find it either)
            name, ns = meta.get("name"), meta.get("namespace")
            if not isinstance(name, str) or not name or (ns is not None and not isinstance(ns, str)):
                continue
            key = (o.get("kind", ""), ns or "default", name)
            if key in self.objects:  # (the API server holds one object of a kind and name per namespace)
                raise InputError(f"duplicate {key[0]} {key[1]}/{key[2]}", join_pointer(p, "metadata", "name"),
                                 kube.ident_of(key[0], meta, namespaced=True))  # fmt: skip
            self.objects[key] = (o, p, label)
        self.read: dict[str, int] = {}  # apiVersion kind -> objects read for their annotations
        self._annotations: dict[str, dict[str, str]] = {}  # pointer -> its annotations, read once

    def annotations(self, kind: str, ns: str, name: str) -> dict[str, str] | None:
        hit = self.objects.get((kind, ns, name))
        if hit is None:
            return None
        o, p, label = hit
        got = self._annotations.get(p)
        if got is None:
            self.read[label] = self.read.get(label, 0) + 1
            meta = o["metadata"]
            ident = kube.ident_of(kind, meta, namespaced=True)
            check_object(o, p, self.limits)  # (the size limits every object read obeys)
            got = self._annotations[p] = r.str_map(meta, "annotations", join_pointer(p, "metadata"), ident)
        return got

    def pointer_of(self, refs: list[dict], ns: str, key: str) -> str | None:
        """The pointer to annotation ``key`` of the first owner among ``refs`` that has it."""
        for ref in refs:
            hit = self.objects.get((ref["kind"], ns, ref["name"]))
            if hit is not None and key in (self._annotations.get(hit[1]) or {}):
                return join_pointer(hit[1], "metadata", "annotations", key)
        return None

    def account(self, d: Draft) -> None:
        """The owner objects read are no longer counted as ignored; a warning names them."""
        if not self.read:
            return
        d.unignore(self.read)
        kinds = ", ".join(f"{k} ({n})" for k, n in sorted(self.read.items()))
        d.notes.append(f"owner objects read only for their annotations (Volcano's PodGroup controller, "
                       f"getAnnotationsFromUpperRes): {kinds}; their other fields are not modelled")  # fmt: skip


def _plain_refs(refs: Any) -> bool:
    """``refs`` is a list of references :func:`owner_references` accepts (the common case,
    checked without building a pointer)."""
    if refs is None:
        return True
    if type(refs) is not list:
        return False
    controllers = 0
    for ref in refs:
        if type(ref) is not dict:
            return False
        for k in ("apiVersion", "kind", "name", "uid"):
            v = ref.get(k)
            if type(v) is not str or not v:
                return False
        for k in ("controller", "blockOwnerDeletion"):
            if ref.get(k) not in (None, True, False):
                return False
        controllers += ref.get("controller") is True
    return controllers <= 1


def owner_references(meta: dict, mp: str, ident: r.Ident) -> list[dict]:
    """The pod's ``ownerReferences`` as the API server stores them: a 422 at the field for
    what its validation refuses (``ValidateOwnerReferences``: apiVersion, kind, name and
    uid required; at most one controller)."""
    if _plain_refs(meta.get("ownerReferences")):
        return meta.get("ownerReferences") or []
    mp = join_pointer(mp, "metadata")
    ptr = join_pointer(mp, "ownerReferences")
    refs = r.lst(meta, "ownerReferences", mp, ident)
    controllers = 0
    for i, ref in enumerate(refs):
        rp = join_pointer(ptr, i)
        if not isinstance(ref, dict):
            raise InputError("an ownerReference must be an object", rp, ident)
        for k in ("apiVersion", "kind", "name", "uid"):
            if not r.string(ref, k, rp, ident):
                raise InputError(f"an ownerReference needs a non-empty {k!r}", join_pointer(rp, k), ident)
        for k in ("controller", "blockOwnerDeletion"):
            r.boolean(ref, k, rp, ident)
        if ref.get("controller") is True:
            controllers += 1
            if controllers > 1:
                raise InputError("only one ownerReference can have controller set to true", join_pointer(rp, "controller"), ident)
    return refs


def podgroup_name(p: PodDraft, refs: list[dict]) -> str:
    """``helpers.GeneratePodgroupName`` (a pod without a uid: ``<namespace>-<name>``)."""
    for ref in refs:
        if ref.get("controller") is True:
            return PREFIX + ref["uid"]
    return PREFIX + (p.uid or f"{p.namespace}-{p.name}")


def upper_annotations(p: PodDraft, refs: list[dict], owners: _Owners) -> dict[str, str]:
    """``getAnnotationsFromUpperRes``: the owners' annotations, the first owner's value of a
    key winning; an owner of another kind, or one the snapshot lacks, adds none."""
    out: dict[str, str] = {}
    for ref in refs:
        kind, name = ref["kind"], ref["name"]
        if kind not in ("ReplicaSet", "DaemonSet", "StatefulSet", "Job"):
            continue
        ann = owners.annotations(kind, p.namespace, name)
        for k, v in (ann or {}).items():
            out.setdefault(k, v)
    return out


def min_member(upper: dict[str, str]) -> int:
    """``getMinMemberFromUpperRes``: an int32 that is not negative, else 1."""
    raw = upper.get(GROUP_MIN_MEMBER)
    if raw is None:
        return 1
    v = go_int(raw, 32)
    return 1 if v is None or v < 0 else v


def refused_tier(ann: dict[str, str]) -> int | None:
    """The negative ``highestTierAllowed`` (``Atoi`` takes a sign) the pod's tier annotation
    gives its PodGroup, which the CRD refuses (minimum 0): the controller's Create fails.
    None when the PodGroup it builds is valid."""
    raw = ann.get(kube.VOLCANO_NT_TIER)
    tier = go_int(raw, 64) if raw is not None else None
    return tier if tier is not None and tier < 0 else None


def network_topology(ann: dict[str, str]) -> NetworkTopology | None:
    """``parseNetworkTopologyFromPod`` (a pod whose tier :func:`refused_tier` refuses builds
    no PodGroup)."""
    mode_raw, tier_raw = ann.get(kube.VOLCANO_NT_MODE), ann.get(kube.VOLCANO_NT_TIER)
    if mode_raw is None and tier_raw is None:
        return None
    mode = "hard"
    if mode_raw is not None and mode_raw.lower() in ("hard", "soft"):
        mode = mode_raw.lower()
    return NetworkTopology(mode=mode, highest_tier_allowed=go_int(tier_raw, 64) if tier_raw is not None else None)


def pod_annotations(p: PodDraft, meta: dict) -> dict[str, str]:
    """The pod's annotations as its object gives them (a 422 at the field when malformed)."""
    if meta.get("annotations") is None:
        return {}
    return r.str_map(meta, "annotations", join_pointer(p.pointer, "metadata"), p.ident)


def build_podgroup(p: PodDraft, meta: dict, refs: list[dict], name: str, owners: _Owners, members: list[PodDraft],
                   now: float) -> GroupDraft:  # fmt: skip
    """``buildPodGroupFromPod`` on ``p`` (the first of ``members``, the pods it is made
    for); its phase as the scheduler has set it since (see the module's docstring)."""
    upper = upper_annotations(p, refs, owners)
    minimum = min_member(upper)
    mp = join_pointer(p.pointer, "metadata")
    ann = pod_annotations(p, meta)
    labels = r.str_map(meta, "labels", mp, p.ident) if meta.get("labels") is not None else {}
    pg_ann = {k: v for k, v in upper.items() if k.startswith(ANNOTATION_PREFIX)}
    for k in (kube.VOLCANO_PREEMPTABLE, COOLDOWN, REVOCABLE_ZONE):
        if k in ann:
            pg_ann[k] = ann[k]
    pg_labels = {k: labels[k] for k in (kube.VOLCANO_PREEMPTABLE, COOLDOWN) if k in labels}
    if JDB_MIN_AVAILABLE in ann:
        pg_ann[JDB_MIN_AVAILABLE] = ann[JDB_MIN_AVAILABLE]
    elif JDB_MAX_UNAVAILABLE in ann:
        pg_ann[JDB_MAX_UNAVAILABLE] = ann[JDB_MAX_UNAVAILABLE]
    usage = {"count/pods": 1000} if p.phase in COMPLETED else pod_quota_usage(p.req)
    scheduled = [m for m in members if m.node_name or m.phase in SCHEDULED]
    if not scheduled:
        phase = "Pending"
    elif len(scheduled) >= minimum:
        phase = "Completed" if all(m.phase in COMPLETED for m in scheduled) else "Running"
    else:
        phase = "Pending"  # (getPodGroupPhase keeps Inqueue only for a PodGroup already Inqueue)
    return GroupDraft(
        source="volcano", namespace=p.namespace, name=name, min_member=minimum,
        min_resources=_min_resources(usage, minimum, upper, refs, owners, p),
        queue=ann.get(kube.VOLCANO_QUEUE_ANNOTATION) or DEFAULT_QUEUE, priority_class=p.priority_class,
        network_topology=network_topology(ann), phase=phase,
        preemptable=r.flag(pg_ann.get(kube.VOLCANO_PREEMPTABLE, pg_labels.get(kube.VOLCANO_PREEMPTABLE))),
        created=p.created or now, annotations=pg_ann, pointer=p.pointer,
        ident=p.ident, bare=not any(ref.get("controller") is True for ref in refs),
    )  # fmt: skip


def _min_resources(usage: dict[str, int], minimum: int, upper: dict[str, str], refs: list[dict], owners: _Owners,
                   p: PodDraft) -> dict[str, int]:  # fmt: skip
    """``CalTaskRequests(pod, minMember)``: the quota usage times minMember, within what a
    quantity can hold (2^63-1 canonical units, as any minResources read), else a 422 at the owners' min-member
    annotation that asks for it (Volcano's Quantity arithmetic would overflow)."""
    out = {k: q * minimum for k, q in usage.items()} if minimum else {}
    if any(v > INT64_MAX for v in out.values()):
        where = owners.pointer_of(refs, p.namespace, GROUP_MIN_MEMBER) or p.pointer
        raise InputError(f"{GROUP_MIN_MEMBER} {upper.get(GROUP_MIN_MEMBER)} times the pod's request is more than a "
                         "quantity holds", where, p.ident)  # fmt: skip
    return out


def annotate(p: PodDraft, name: str, source: str) -> None:
    """``updatePodAnnotations``: the pod names the PodGroup, read as a pod so annotated."""
    p.annotations = {**p.annotations, kube.VOLCANO_GROUP_ANNOTATION: name}
    p.group = GroupRef(source, name, p.pointer + GROUP_AT)
    p.queue = kube.pod_queue(p.labels, p.annotations, p.group)
