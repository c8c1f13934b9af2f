"""GPU exclusivity rules: Volcano's ``deviceshare.GPUExclusiveRules``
(``pkg/scheduler/plugins/deviceshare/gpuexclusive.go``), which wraps each hami-core vGPU node's
devices (``exclusiveGPUDevices``) so that pods matching one rule never share a card.

* Rules (``parseExclusiveRules``): the argument is a list; each item a mapping whose string keys
  with string values are a rule's labels (other entries are dropped); an item left without a
  label is no rule. Without a rule nothing is wrapped (``wrapGPUDevicesForExclusivity``).
* A pod matches a rule when its labels hold each of the rule's with the same value
  (``podMatchesRule``: extra labels do not matter; a pod may match several rules).
* A node is wrapped when its mode (its last device's) is hami-core: MIG nodes are not.
  Per wrapped node, :class:`Exclusive` keeps Go's three maps: the cards each rule holds
  (``ruleGPUs``), the rules of each rule-matching pod (``podRules``) and the pods' uids
  (``podUIDs``). At session open (:func:`wrap`), from the pods on the node (every status the
  node holds, Releasing and Pipelined included): a rule-matching pod's cards are those whose
  users include it, else (it is on none: Releasing or Pipelined) those its
  ``volcano.sh/vgpu-ids-new`` names (each UUID looked up exactly).
* FilterNode and Allocate of a pod matching rules cap the cards its rules hold (their slots set
  to their users: ``capGPUs``) for that call only (:func:`cap` / :func:`restore`), so the
  allocator skips them; a pod of other rules, or of none, shares them freely. ``ScoreNode``
  returns what the capped filter left.
* Allocate (:meth:`Exclusive.allocated`) records the pod's rules and adds every card it is a
  user of to each. ``AddResource`` (a pod added to the node, not Pipelined) records its uid and,
  when it matches, its rules and the cards it is a user of; ``SubResource`` and ``Release``
  untrack it (:meth:`Exclusive.untrack`): each card of its rules' sets stays only while another
  tracked pod is among its users.
* Go also keeps each Allocate's cards across sessions (``persistedGPUs``) for the pods on the
  node that are users of no card at the next open. Nothing here keeps it: in ``/v1/simulate`` a
  pod an earlier cycle placed is either bound (it runs with the annotation its bind gave it, so
  it is a user of its cards) or no longer on the node (pruned in Go), so those entries never
  apply.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.devices import vgpu as vg

Rule = dict[str, str]


def parse_rules(raw: Any) -> tuple[Rule, ...]:
    """``parseExclusiveRules``: the rules Volcano reads from the argument."""
    if not isinstance(raw, list):
        return ()
    rules = []
    for item in raw:
        labels = {k: v for k, v in item.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(item, dict) else {}
        if labels:
            rules.append(labels)
    return tuple(rules)


def matching(labels: dict[str, str] | None, rules: tuple[Rule, ...]) -> tuple[int, ...]:
    """``matchingRules``: the indexes of the rules whose every label the pod has, same value."""
    if not labels:
        return ()
    return tuple(i for i, rule in enumerate(rules) if all(labels.get(k) == v for k, v in rule.items()))


class Exclusive:
    """A wrapped node's ``exclusiveGPUDevices`` state: ``cards`` (rule -> card ids, ``ruleGPUs``),
    ``pod_rules`` (pod key -> its rules, ``podRules``), ``pod_uids`` (pod key -> uid,
    ``podUIDs``)."""

    __slots__ = ("cards", "pod_rules", "pod_uids")

    def __init__(self, cards: dict[int, set[int]], pod_rules: dict[str, frozenset[int]], pod_uids: dict[str, str]) -> None:
        self.cards, self.pod_rules, self.pod_uids = cards, pod_rules, pod_uids

    def copy(self) -> Exclusive:
        return Exclusive({r: set(s) for r, s in self.cards.items()}, dict(self.pod_rules), dict(self.pod_uids))

    def reserved(self, matched: tuple[int, ...]) -> set[int]:
        """``reservedGPUsForPod``: the cards the pod's rules hold (their union)."""
        out: set[int] = set()
        for r in matched:
            out |= self.cards.get(r, set())
        return out

    def _hold(self, devices: vg.VgpuDevices, uid: str, rules: Iterable[int]) -> None:
        """Each card the pod is a user of, into each of ``rules``."""
        held = [i for i, d in devices.device.items() if uid in d.pods]
        if held:
            for r in rules:
                self.cards.setdefault(r, set()).update(held)

    def add_resource(self, devices: vg.VgpuDevices, key: str, uid: str, matched: tuple[int, ...]) -> None:
        """``AddResource`` (after the devices'): its uid; ``trackPodFromPodMap`` when it matches."""
        self.pod_uids[key] = uid
        if matched:
            self.pod_rules[key] = frozenset(matched)
            self._hold(devices, uid, matched)

    def sub_resource(self, devices: vg.VgpuDevices, key: str, uid: str) -> None:
        """``SubResource`` (after the devices'): untracked, its uid forgotten."""
        self.untrack(devices, key, uid)
        self.pod_uids.pop(key, None)

    def allocated(self, devices: vg.VgpuDevices, key: str, uid: str, matched: tuple[int, ...]) -> None:
        """``Allocate``'s bookkeeping after the devices' (a pod matching rules): its rules, and
        every card it is a user of into each."""
        self.pod_rules[key] = frozenset(matched)
        self._hold(devices, uid, matched)

    def untrack(self, devices: vg.VgpuDevices, key: str, uid: str) -> None:
        """``untrackPod``: the pod's rules forgotten; each card of those rules' sets (all of
        them, not only the pod's) stays while a user other than the pod is a tracked pod."""
        rules = self.pod_rules.pop(key, None)
        if rules is None:
            return
        tracked = {self.pod_uids.get(k, "") for k in self.pod_rules}
        for r in rules:
            held = self.cards.get(r)
            if held is None:
                continue
            for i in list(held):
                d = devices.device.get(i)
                if d is not None and not any(u != uid and u in tracked for u in d.pods):
                    held.discard(i)
            if not held:
                del self.cards[r]


def wrap(devices: vg.VgpuDevices, rules: tuple[Rule, ...],
         pods: Iterable[tuple[str, str, dict[str, str], dict[str, str]]]) -> Exclusive | None:  # fmt: skip
    """``wrapGPUDevicesForExclusivity`` for one node: None when its mode is not hami-core; else
    its state from the pods on it, ``pods`` (key, uid, labels, annotations)."""
    if devices.mode not in ("", vg.HAMI_CORE):
        return None
    pod_rules: dict[str, frozenset[int]] = {}
    pod_uids: dict[str, str] = {}
    names: dict[str, str] = {}
    for key, uid, labels, notes in pods:
        pod_uids[key] = uid
        matched = matching(labels, rules)
        if matched:
            pod_rules[key] = frozenset(matched)
            names[key] = notes.get(vg.IDS, "")
    out = Exclusive({}, pod_rules, pod_uids)
    if not pod_rules:
        return out
    users: dict[str, list[int]] = {}
    for i, d in devices.device.items():
        for u in d.pods:
            users.setdefault(u, []).append(i)
    by_uuid: dict[str, int] = {}
    for i, d in devices.device.items():  # (Go's map: among equal UUIDs a random one; here the first)
        by_uuid.setdefault(d.uuid, i)
    for key, matched in pod_rules.items():
        held = users.get(pod_uids[key])  # source 1: PodMap
        if not held:  # source 2: the pod's annotation
            held = [by_uuid[u] for ctr in vg.decode_pod_devices(names[key]) for u, _, _, _ in ctr if u in by_uuid]
        for r in matched if held else ():
            out.cards.setdefault(r, set()).update(held)
    return out


def cap(devices: vg.VgpuDevices, cards: set[int]) -> dict[int, int]:
    """``capGPUs``: each of ``cards`` gets as many slots as it has users; what they had."""
    saved = {}
    for i in cards:
        d = devices.device.get(i)
        if d is not None:
            saved[i] = d.number
            d.number = d.used_num
    return saved


def restore(devices: vg.VgpuDevices, saved: dict[int, int]) -> None:
    """``restoreGPUs``."""
    for i, number in saved.items():
        devices.device[i].number = number
