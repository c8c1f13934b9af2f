"""Volcano's vGPU exclusivity rules (``deviceshare.GPUExclusiveRules``;
``pkg/scheduler/plugins/deviceshare/gpuexclusive.go`` at ed72c7c, modelled in
``app/plugins/gpuexclusive.py``), each rule on a small cluster posted end to end to
``/v1/decisions`` (``/v1/simulate`` for the one across cycles).

The rules: rule 0 ``{app: training, team: ml}``, rule 1 ``{workload: inference}`` (those of
``gpuexclusive_test.go``). Pods ask one vGPU of 1000 MiB; a card has 10 slots, so without the
rules every pod below would share one card. Pending pods are placed in priority order.
"""

from __future__ import annotations

from typing import Any

from app.devices import vgpu as vg
from app.settings import Settings
from app.simulate import simulate
from tests.kube import podgroup, post_decision, priority_class, request
from tests.test_deviceshare_plugin import MIG_CM, conf, device_cm, session, vgpu_node, vpod

RULES = [{"app": "training", "team": "ml"}, {"workload": "inference"}]
EXCL = {"deviceshare.VGPUEnable": True, "deviceshare.GPUExclusiveRules": RULES}
VGPU = {"deviceshare.VGPUEnable": True}
TRAIN, INFER = {"app": "training", "team": "ml"}, {"workload": "inference"}
ONE_CARD = "GPU-a,10,16384,NVIDIA-A100,true,hami-core:"
TWO_CARDS = ONE_CARD + "GPU-b,10,16384,NVIDIA-A100,true,hami-core:"


def _node(register: str = ONE_CARD, cards: int = 1) -> dict:
    return vgpu_node("n1", register, number=str(10 * cards), cores=str(100 * cards), memory=str(16384 * cards))


def _pending(name: str, labels: dict | None, priority: int = 0) -> dict:
    return vpod(name, mem="1000", labels=labels, priority=priority)


def _running(name: str, labels: dict | None, card: str = "GPU-a", **kw: Any) -> dict:
    """A Running vGPU pod of 1000 MiB on ``card`` (its ``volcano.sh/vgpu-ids-new``)."""
    return vpod(name, mem="1000", node="n1", labels=labels, annotations={vg.IDS: f"{card},NVIDIA,1000,0:;"}, **kw)


def _bound(objs: list[dict], args: dict = EXCL, actions: str | None = None) -> dict[str, str]:
    out = _decide(objs, args, actions)
    return {b["pod"].split("/")[1]: b["node"] for b in out["bindings"]}


def _decide(objs: list[dict], args: dict = EXCL, actions: str | None = None) -> dict:
    c = conf(args)
    if actions is not None:
        c = c.replace('"enqueue, allocate, backfill"', f'"{actions}"')
    return post_decision(objs, c)


def test_pods_of_one_exclusive_rule_never_share_a_card():
    """Three rule-0 pods on a node of two cards: each placement reserves its card for rule 0
    (``Allocate`` records it; the next ``FilterNode`` caps it), so two bind, one per card;
    without the rules all three share."""
    objs = [_node(TWO_CARDS, 2), *(_pending(f"t{i}", TRAIN, priority=3 - i) for i in range(3))]
    assert _bound(objs) == {"t0": "n1", "t1": "n1"}
    assert len(_bound(objs, VGPU)) == 3


def test_a_card_held_by_a_running_pod_of_a_rule_is_reserved_for_that_rule():
    """A Running rule-0 pod on the only card (its annotation puts it among the card's users):
    a pending rule-0 pod finds no card, whatever other labels it has."""
    objs = [_node(), _running("a", TRAIN), _pending("c", {**TRAIN, "env": "prod"})]
    assert _bound(objs) == {}
    assert _bound(objs, VGPU) == {"c": "n1"}


def test_a_pod_matching_no_rule_shares_an_exclusive_card():
    """The card a rule-0 pod holds takes pods matching no rule: one without labels, one with
    only part of rule 0's labels, one with a different value."""
    pending = [_pending("n", None), _pending("p", {"app": "training"}), _pending("v", {**TRAIN, "team": "data"})]
    assert _bound([_node(), _running("a", TRAIN), *pending]) == {"n": "n1", "p": "n1", "v": "n1"}


def test_pods_of_different_rules_share_a_card():
    """Exclusivity is per rule: a rule-1 pod takes the card a rule-0 pod holds (and the other
    way round), a second rule-0 pod does not."""
    objs = [_node(), _pending("t", TRAIN, priority=3), _pending("i", INFER, priority=2), _pending("t2", TRAIN, priority=1)]
    assert _bound(objs) == {"t": "n1", "i": "n1"}


def test_a_pod_matching_several_rules_reserves_its_card_for_each():
    """A pod matching both rules placed first: its card is reserved for rule 0 and for rule 1,
    so neither a rule-0 nor a rule-1 pod takes it; a pod of no rule does."""
    objs = [_node(), _pending("both", {**TRAIN, **INFER}, priority=4), _pending("i", INFER, priority=3),
            _pending("t", TRAIN, priority=2), _pending("s", {"app": "serving"}, priority=1)]  # fmt: skip
    assert _bound(objs) == {"both": "n1", "s": "n1"}


def test_a_pod_matching_several_rules_avoids_the_cards_of_each():
    """Card a held by a rule-0 pod, card b by a rule-1 pod: a pod matching both finds no card
    (the union of its rules' cards is capped); one matching a single rule takes the other's."""
    holders = [_running("a", TRAIN, "GPU-a"), _running("b", INFER, "GPU-b")]
    assert _bound([_node(TWO_CARDS, 2), *holders, _pending("both", {**TRAIN, **INFER})]) == {}
    assert _bound([_node(TWO_CARDS, 2), *holders, _pending("i", INFER)]) == {"i": "n1"}


def test_hami_core_mode_only():
    """A node whose (last) device is MIG is not wrapped: two rule-0 pods take instances of one
    card. The same registration on an H100 (a type the MIG config does not know) is hami-core,
    and the rule keeps the second pod off the card."""
    pending = [_pending("t0", TRAIN, priority=2), _pending("t1", TRAIN, priority=1)]
    mig = vgpu_node("n1", "GPU-a,10,40960,NVIDIA-A100,true,mig:", memory="99999")
    assert _bound([mig, device_cm(MIG_CM), *pending]) == {"t0": "n1", "t1": "n1"}
    h100 = vgpu_node("n1", "GPU-a,10,40960,NVIDIA-H100,true,mig:", memory="99999")
    assert _bound([h100, device_cm(MIG_CM), *pending]) == {"t0": "n1"}


def test_a_releasing_pod_of_a_rule_still_reserves_the_card_its_annotation_names():
    """A terminating rule-0 pod is no user of its card (a Releasing pod adds nothing to the
    devices) but is on the node at session open: the card its ``volcano.sh/vgpu-ids-new``
    names is reserved all the same (``wrapGPUDevicesForExclusivity``' second source)."""
    leaving = _running("a", TRAIN)
    leaving["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    assert _bound([_node(), leaving, _pending("c", TRAIN)]) == {}
    assert _bound([_node(), leaving, _pending("c", INFER)]) == {"c": "n1"}


def _preempt(holders: list[dict]) -> dict:
    """A high-priority rule-0 pod and ``holders`` on the one-card node; actions allocate and
    preempt (no gang plugin: a pod on its own may be a victim)."""
    objs = [_node(), priority_class("low", 1), priority_class("high", 1000), *holders,
            vpod("high", mem="1000", labels=TRAIN, priority_class="high")]  # fmt: skip
    c = conf(EXCL).replace('"enqueue, allocate, backfill"', '"enqueue, allocate, preempt"').replace("  - name: gang\n", "")
    return post_decision(objs, c)


def test_an_evicted_pod_frees_its_card_for_its_rule():
    """The only card is held by a low-priority rule-0 pod (and a high-priority pod of no rule):
    the high-priority rule-0 pod's node is a preempt candidate (the device refusal is
    Unschedulable); evicting the holder untracks it (``SubResource``), and no other tracked
    pod is among the card's users, so the card leaves rule 0's set and the preemptor is
    nominated there."""
    for holders in ([_running("low", TRAIN, priority_class="low")],
                    [_running("low", TRAIN, priority_class="low"), _running("keep", None, priority_class="high")]):
        out = _preempt(holders)
        assert [e["pod"] for e in out["evictions"]] == ["default/low"]
        assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("default/high", "n1")]


def test_an_evicted_pods_card_stays_reserved_while_a_pod_of_any_rule_is_on_it():
    """As above, but the high-priority pod sharing the card matches rule 1: untracking the
    victim keeps the card in rule 0's set (``untrackPod``: another tracked pod, of any rule, is
    among its users), so the preemptor still does not fit and the eviction is taken back."""
    out = _preempt([_running("low", TRAIN, priority_class="low"), _running("keep", INFER, priority_class="high")])
    assert out["evictions"] == [] and out["nominations"] == []


def test_a_card_bound_in_an_earlier_cycle_stays_reserved():
    """``/v1/simulate``: cycle 1 binds a rule-0 pod and a rule-1 pod on the card (the second
    rule-0 pod is kept off it in the session); in cycle 2 the bound pods run with the
    ``volcano.sh/vgpu-ids-new`` Volcano's bind gave them, so the card is still rule 0's and
    the waiting rule-0 pod stays pending (read without the annotation, it would bind)."""
    body = request([_node(), _pending("t0", TRAIN, priority=2), _pending("t1", TRAIN, priority=1),
                    _pending("i", INFER, priority=1)], config=conf(EXCL))  # fmt: skip
    body["cycles"] = 3
    out = simulate(body, Settings())
    assert [sorted(b["pod"] for b in cyc["bindings"]) for cyc in out["cycles"]] == [["default/i", "default/t0"], []]


def test_a_placement_taken_back_leaves_its_rules_cards():
    """A gang of two rule-0 pods on the one-card node: the first takes the card (rule 0's now),
    the second finds it reserved, so the gang is taken back; undoing the first placement
    untracks it (no other tracked pod is among the card's users), so a later rule-0 pod of its
    own binds there (the undone pod's share stays counted, as in Volcano: its ``Release`` reads
    an annotation the session's placement never wrote)."""
    gang = [vpod(f"g{i}", mem="1000", labels=TRAIN, group="g") for i in range(2)]
    objs = [_node(), priority_class("high", 1000), podgroup("g", min_member=2, priority_class="high"), *gang,
            _pending("t", TRAIN)]  # fmt: skip
    assert _bound(objs) == {"t": "n1"}


def test_gangplanks_trials_put_the_exclusivity_state_back():
    """Gangplank's own trials (e.g. preempt's dry run of victims, which Volcano runs on a copy
    of the node) leave the rules' cards as they found them: a placement tried and taken back
    inside one changes them, and on leaving they are as before. (Gangplank's internal state,
    read from the session: no decision shows a trial.)"""
    ssn = session([_node(TWO_CARDS, 2), _running("a", TRAIN), _pending("c", TRAIN)], conf(EXCL))
    plugin = ssn.plugins["deviceshare"]

    def state() -> tuple:
        ex = plugin.vgpus[0].exclusive  # (a trial's restore puts back a copy of the node's devices)
        return ({r: sorted(s) for r, s in ex.cards.items()}, dict(ex.pod_rules), dict(ex.pod_uids))

    before = state()
    assert before[0] == {0: [0]}
    with ssn.trial():
        assert ssn.statement().allocate(ssn.cluster.find_task("default/c"), 0)
        assert state()[0] == {0: [0, 1]}
    assert state() == before
