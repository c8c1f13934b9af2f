"""kube-scheduler's DynamicResources plugin test table, transcribed as acceptance tests of
Gangplank's model of that plugin (``app.plugins.dynamicresources.DynamicResources``, the
``volcano`` / ``gangplank`` profiles' version; the ``kai`` subclass is not used here).

Source: kubernetes/kubernetes, ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go``,
``TestPlugin`` (``testPlugin``'s ``testcases`` map, 62 cases), the version that uses the
``resource.k8s.io/v1`` API (``resourceapi "k8s.io/api/resource/v1"``, ``fwk "k8s.io/kube-scheduler/framework"``,
with the DRAExtendedResource, binding-condition and prioritized-list-scoring cases). The
code index stores that version as file id 413406178 and does not name its commit; the two
stored versions it names by commit are older (c366b3458f8b30e4a7886a3ed387fa32e304bebd uses
``resource/v1alpha3``, 0105a002bc6f99c39a1ee2d08a895d11a1b5bf49 ``resource/v1alpha2``).

How a Go case maps onto Gangplank (one ``Cluster`` read by ``app.ingest.request.read_request``
under the ``volcano`` profile, then ``DynamicResources(cluster)`` driven step by step as
Go's ``testPlugin`` drives the plugin):

* Fixtures: ``workerNode`` (and ``workerNode2``/``3``) is a node labelled
  ``kubernetes.io/hostname=<name>``; ``st.MakeResourceSlice(node, driver).Device(...)`` a slice
  of pool ``<node>`` of driver ``some-driver`` published for ``nodeName: <node>`` (one slice of
  one); ``deviceClass`` the class ``my-resource-class`` with no selector; a claim's
  ``Request(className)`` the request ``req-1`` for exactly one device of that class;
  ``pendingClaim`` has the pod ``my-pod`` (uid 1234) as its controller owner;
  ``allocationResult`` is one device of pool ``worker`` pinned to node ``worker``
  (``matchFields metadata.name In [worker]``).
* PreEnqueue and PreFilter both map to :meth:`refusal` (Gangplank has no separate
  PreEnqueue): a Go case that rejects in either must be refused; the message's key words are
  checked (Go compares only the error strings, not the status code).
* Filter: :meth:`mask` per node, for the nodes Go evaluates (Go stops at the first Filter
  that returns ``Error``); then whether the pod can go anywhere after Filter and PreScore
  (``mask.any()``), as Go's cycle decides it.
* Score and NormalizeScore (:meth:`raw_scores`, :meth:`score`) over the nodes that passed,
  when two or more did, as Go's test runs them: Go's expected scores (0 where a case gives
  none).
* Reserve: on the node Go selects (the first feasible one, or the first best-scored one),
  :meth:`placed` after the task's ``node`` is set; Go's ``inFlightClaims`` must be exactly
  the claims :attr:`in_flight` holds, each with as many devices as Go's allocation result
  (Go ignores the device names), of pool ``worker``, and
  a node selector that admits the node Go's does.
* Unreserve (``unreserveBeforePreBind`` / ``unreserveAfterBindFailure``): :meth:`left`, then
  no allocation is in flight and the claims after the cycle are as they were.
* PreBind: the pod bound (its task ``ALLOCATED`` on the node), :meth:`snapshot_after` gives
  each claim as Go's PreBind leaves it (allocation, ``reservedFor``).
* Admin access: ``admin_access`` is Go's ``adminAccess(claim)`` (``exactly.adminAccess`` on
  its requests, ``adminAccess`` on its allocation results); Gangplank's allocator always runs
  as with ``enableDRAAdminAccess: true``. ``Case.admin`` names the claims whose allocation Go
  expects with ``adminAccess`` results. The namespace label the API server requires for such
  claims is admission's, not the scheduler's, and is not part of these cases.
* PostFilter (deallocation), finalizers, PreBindPreFlight and metrics are not
  compared (not modelled); a case whose only difference is one of those runs on the rest.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson
import pytest

from app.ingest.request import read_request
from app.model.cluster import TaskStatus
from app.plugins.dynamicresources import DynamicResources
from app.settings import Settings
from tests.kube import node, pod, podgroup, request

API = "resource.k8s.io/v1"
NS = "default"
POD, POD_UID = "my-pod", "1234"
CLAIM, CLAIM2 = "my-pod-my-resource", "my-pod-my-resource-2"
CLASS, DRIVER = "my-resource-class", "some-driver"
BROKEN = f'device.attributes["{DRIVER}"].healthy'  # brokenSelector: no such attribute on workerNode


# -- Go's fixtures --------------------------------------------------------------------------------
def device_class(selectors: tuple[str, ...] = ()) -> dict:
    return {"apiVersion": API, "kind": "DeviceClass", "metadata": {"name": CLASS},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in selectors]}}  # fmt: skip


def slice_(node_name: str, *devices: str | tuple[str, dict], taints: bool = False) -> dict:
    """``st.MakeResourceSlice(node, driver).Device(...)``."""
    devs = []
    for d in devices:
        name, attrs = (d, None) if isinstance(d, str) else d
        dev: dict[str, Any] = {"name": name}
        if attrs:
            dev["attributes"] = attrs
        if taints:
            dev["taints"] = [{"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}]
        devs.append(dev)
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": f"{node_name}-{DRIVER}"},
            "spec": {"driver": DRIVER, "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                     "nodeName": node_name, "devices": devs}}  # fmt: skip


def healthy(v: bool) -> tuple[str, dict]:
    return ("instance-1", {"healthy": {"bool": v}})


def exactly(name: str = "req-1", cls: str = CLASS, count: int = 1, selectors: tuple[str, ...] = ()) -> dict:
    ex: dict[str, Any] = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}
    if selectors:
        ex["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return {"name": name, "exactly": ex}


def first_available(name: str, *subs: tuple[str, int] | tuple[str, int, str], cls: str = CLASS) -> dict:
    out = []
    for s in subs:
        sub: dict[str, Any] = {"name": s[0], "deviceClassName": cls, "allocationMode": "ExactCount", "count": s[1]}
        if len(s) > 2:
            sub["selectors"] = [{"cel": {"expression": s[2]}}]
        out.append(sub)
    return {"name": name, "firstAvailable": out}


def node_pin(name: str) -> dict:
    return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]}


ALLOCATION = {"devices": {"results": [{"driver": DRIVER, "pool": "worker", "device": "instance-1", "request": "req-1"}]},
              "nodeSelector": node_pin("worker")}  # fmt: skip
WRONG_TOPOLOGY = {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "no-such-label", "operator": "In", "values": ["no-such-value"]}]}]}}  # fmt: skip
GOOD_TOPOLOGY = {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "kubernetes.io/hostname", "operator": "In", "values": ["worker"]}]}]}}  # fmt: skip
RESERVED = [{"resource": "pods", "name": POD, "uid": POD_UID}]


def claim(name: str = CLAIM, *requests: dict, owner: str | None = POD_UID, allocation: dict | None = None,
          reserved: bool = False, deleting: bool = False) -> dict:  # fmt: skip
    """``st.MakeResourceClaim()``: ``owner`` the controller pod's uid (``pendingClaim``), None for ``claim``."""
    meta: dict[str, Any] = {"name": name, "namespace": NS, "uid": f"uid-{name}"}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": POD, "uid": owner, "controller": True}]
    if deleting:
        meta["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    o: dict[str, Any] = {"apiVersion": API, "kind": "ResourceClaim", "metadata": meta,
                         "spec": {"devices": {"requests": list(requests) or [exactly()]}}}  # fmt: skip
    status: dict[str, Any] = {}
    if allocation is not None:
        status["allocation"] = allocation
    if reserved:
        status["reservedFor"] = RESERVED
    if status:
        o["status"] = status
    return o


def other_claim(allocation: dict | None = None) -> dict:
    """``otherClaim`` / ``otherAllocatedClaim``: not the pod's."""
    return claim("not-my-claim", owner=None, allocation=allocation)


def admin_access(o: dict) -> dict:
    """``adminAccess(claim)``: a copy whose every request has ``exactly.adminAccess: true`` and
    whose allocation results (if any) have ``adminAccess: true``."""
    o = copy.deepcopy(o)
    for rq in o["spec"]["devices"]["requests"]:
        rq["exactly"]["adminAccess"] = True
    for res in ((o.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results", ()):
        res["adminAccess"] = True
    return o


def the_pod(kind: str) -> dict:
    """``podWithClaimName``, ``podWithClaimTemplate`` (status not set), ``podWithClaimTemplateInStatus``,
    ``podWithTwoClaimNames``, or the ``empty`` case's pod ``foo`` with no claim."""
    p = pod("foo" if kind == "none" else POD, ns=NS, cpu="1", group="pg")
    p["metadata"]["uid"] = POD_UID
    if kind == "name":
        p["spec"]["resourceClaims"] = [{"name": "my-resource", "resourceClaimName": CLAIM}]
    elif kind in ("template", "template-status"):
        p["spec"]["resourceClaims"] = [{"name": "my-resource", "resourceClaimTemplateName": CLAIM}]
        if kind == "template-status":
            p["status"] = {"resourceClaimStatuses": [{"name": "my-resource", "resourceClaimName": CLAIM}]}
    elif kind == "two-names":
        p["spec"]["resourceClaims"] = [{"name": "my-resource", "resourceClaimName": CLAIM},
                                       {"name": "my-resource-2", "resourceClaimName": CLAIM2}]  # fmt: skip
    return p


# -- the table ------------------------------------------------------------------------------------
@dataclass
class Case:
    pod: str = "name"
    claims: list[dict] = field(default_factory=list)
    classes: list[dict] = field(default_factory=list)
    slices: list[dict] = field(default_factory=list)
    nodes: tuple[str, ...] = ("worker",)
    #: PreEnqueue or PreFilter rejects; the words its message must hold
    refused: str | None = None
    #: Filter per node Go evaluates (None: every node passes)
    filter: dict[str, bool] | None = None
    #: whether the cycle finds a node after Filter and PreScore (None: some node passed the Filter)
    schedulable: bool | None = None
    #: the node Reserve runs on (None: the first that passed, or the best scored)
    select: str | None = None
    #: Score and NormalizeScore per node that passed the Filter (Go scores only when two or more did)
    scores: dict[str, tuple[int, int]] | None = None
    #: after Reserve: claim name -> devices of its allocation in flight (pinned to the selected node)
    in_flight: dict[str, int] = field(default_factory=dict)
    #: Unreserve after Reserve (before PreBind, or after a failed bind)
    unreserve: bool = False
    #: after PreBind (or Unreserve): claim name -> (devices allocated or None, reservedFor uids)
    after: dict[str, tuple[int | None, list[str]]] = field(default_factory=dict)
    #: the claims whose allocation (in flight, and after) has ``adminAccess: true`` on every
    #: result (Go's ``adminAccess(allocatedClaim)``); every other allocation compared has none
    admin: tuple[str, ...] = ()


def bound(n: int | None = 1) -> tuple[int | None, list[str]]:
    return (n, [POD_UID])


WITH_RESOURCES = Case(claims=[claim()], classes=[device_class()], slices=[slice_("worker", "instance-1")],
                      in_flight={CLAIM: 1}, after={CLAIM: bound()})  # fmt: skip
CLAIM_REFERENCE = Case(claims=[claim(allocation=ALLOCATION), other_claim()], after={CLAIM: bound(), "not-my-claim": (None, [])})
CLAIM_TEMPLATE = Case(pod="template-status", claims=[claim(allocation=ALLOCATION), other_claim()],
                      after={CLAIM: bound(), "not-my-claim": (None, [])})  # fmt: skip
SLICE4 = slice_("worker", "instance-1", "instance-2", "instance-3", "instance-4")
PL = first_available("req-1", ("subreq-1", 1))


def skip(reason: str) -> Any:
    return pytest.mark.skip(reason=reason)


def xfail(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, reason=reason)


EXTENDED = "DRAExtendedResource: a pod's extended resources backed by DRA devices (special claims the plugin creates) are not modelled"
BINDING = ("DRADeviceBindingConditions: PreBind's wait for a device's binding conditions (met, failed, timed out) is the "
           "binding cycle's, which Gangplank does not run (its allocator takes such devices; the warnings say the pod "
           "binds once the conditions are met)")
ADMIN_OFF = ("DRAAdminAccess off: Go's Filter refuses the claim (\"claim default/my-pod-my-resource, request req-1: admin "
             "access is requested, but the feature is disabled\"); Gangplank's allocator always runs with admin access on")
TIMEOUT = "the Filter timeout / a canceled Filter context is not modelled"

CEL_PER_NODE = (
    "kube-scheduler's framework stops the pod's whole cycle on a Filter Error (a CEL runtime error on one node keeps the "
    "pod pending though other nodes' devices match); Volcano's PredicateNodes (pkg/scheduler/util/predicate_helper.go) "
    "records a predicate error for that node and goes on with the others, and so do Gangplank's profiles (the per-node "
    "Filter results match Go's: worker refused, the others admitted); the kube-scheduler-only outcome is not asserted"
)

CASES: list[Any] = [
    pytest.param(Case(pod="none"), id="empty"),
    pytest.param(Case(pod="none"), id="empty-with-extended-resources-enabled"),
    pytest.param(CLAIM_REFERENCE, id="claim-reference"),
    pytest.param(CLAIM_TEMPLATE, id="claim-template"),
    pytest.param(Case(pod="template", claims=[claim(allocation=ALLOCATION), other_claim()], refused="ResourceClaim not created yet"),
                 id="missing-claim"),
    pytest.param(Case(pod="template-status", claims=[claim(allocation=ALLOCATION, deleting=True)], refused="is being deleted"),
                 id="deleted-claim"),
    pytest.param(Case(pod="template-status", claims=[claim(allocation=ALLOCATION, owner=POD_UID + "123")], refused="pod is not owner"),
                 id="wrong-claim"),
    pytest.param(Case(claims=[claim()], classes=[device_class()], filter={"worker": False}), id="no-resources"),
    pytest.param(WITH_RESOURCES, id="with-resources"),
    pytest.param(WITH_RESOURCES, id="with-resources-has-finalizer"),
    pytest.param(WITH_RESOURCES, id="with-resources-finalizer-gets-removed"),
    pytest.param(WITH_RESOURCES, id="with-resources-finalizer-gets-added"),
    pytest.param(Case(claims=[claim()], classes=[device_class()], slices=[slice_("worker", "instance-1")], in_flight={CLAIM: 1},
                      unreserve=True, after={CLAIM: (None, [])}), id="skip-bind"),
    pytest.param(Case(claims=[claim(), other_claim(ALLOCATION)], classes=[device_class()], slices=[slice_("worker", "instance-1")],
                      filter={"worker": False}), id="exhausted-resources"),
    # DRADeviceTaints on (kube-scheduler 1.36, which the volcano profile follows): the NoSchedule
    # taint is not tolerated, no node fits
    pytest.param(None, id="tainted-device-disabled",
                 marks=skip("DRADeviceTaints off in Go's case; the volcano profile runs with it on (kube-scheduler 1.36)")),
    pytest.param(Case(claims=[claim()], classes=[device_class()], slices=[slice_("worker", "instance-1", taints=True)],
                      filter={"worker": False}), id="tainted-device-enabled"),
    # DRAAdminAccess on: the pending claim asks for admin access, so it takes instance-1 though
    # not-my-claim holds it; its allocation's result has adminAccess (adminAccess(allocatedClaim))
    pytest.param(Case(claims=[admin_access(claim()), other_claim(ALLOCATION)], classes=[device_class()],
                      slices=[slice_("worker", "instance-1")], in_flight={CLAIM: 1},
                      after={CLAIM: bound(), "not-my-claim": (1, [])}, admin=(CLAIM,)),
                 id="request-admin-access-with-DRAAdminAccess-featuregate"),
    pytest.param(None, id="request-admin-access-without-DRAAdminAccess-featuregate", marks=skip(ADMIN_OFF)),
    # not-my-claim holds instance-1 with admin access: not in use (foreachAllocatedDevice skips such
    # results whatever the gate; Go runs this case with DRAAdminAccess off, the pending claim asks for
    # no admin access), so the pending claim takes it
    pytest.param(Case(claims=[claim(), admin_access(other_claim(ALLOCATION))], classes=[device_class()],
                      slices=[slice_("worker", "instance-1")], in_flight={CLAIM: 1},
                      after={CLAIM: bound(), "not-my-claim": (1, [])}, admin=("not-my-claim",)),
                 id="structured-ignore-allocated-admin-access"),
    pytest.param(Case(claims=[claim(CLAIM, exactly(selectors=(BROKEN,)))], classes=[device_class()], slices=[slice_("worker", "instance-1")],
                      filter={"worker": False}), id="claim-parameters-CEL-runtime-error"),
    pytest.param(Case(claims=[claim()], classes=[device_class((BROKEN,))], slices=[slice_("worker", "instance-1")],
                      filter={"worker": False}), id="class-parameters-CEL-runtime-error"),
    pytest.param(Case(nodes=("worker", "worker-2"), claims=[claim(CLAIM, exactly(selectors=(BROKEN,)))], classes=[device_class()],
                      slices=[slice_("worker", "instance-1"), slice_("worker-2", healthy(True))],
                      filter={"worker": False}, schedulable=False),
                 id="CEL-runtime-error-for-one-of-two-nodes", marks=skip(CEL_PER_NODE)),
    pytest.param(Case(nodes=("worker", "worker-2", "worker-3"), claims=[claim(CLAIM, exactly(selectors=(BROKEN,)))],
                      classes=[device_class()],
                      slices=[slice_("worker", "instance-1"), slice_("worker-2", healthy(True)), slice_("worker-3", healthy(True))],
                      filter={"worker": False, "worker-2": True, "worker-3": True}, schedulable=False),
                 id="CEL-runtime-error-for-one-of-three-nodes", marks=skip(CEL_PER_NODE)),
    pytest.param(Case(claims=[claim()], refused="request req-1: device class my-resource-class does not exist"), id="missing-class"),
    pytest.param(Case(claims=[claim(allocation=WRONG_TOPOLOGY)], filter={"worker": False}), id="wrong-topology"),
    pytest.param(Case(claims=[claim(allocation=GOOD_TOPOLOGY)], after={CLAIM: bound(0)}), id="good-topology"),
    pytest.param(Case(claims=[claim(allocation=GOOD_TOPOLOGY)], unreserve=True, after={CLAIM: (0, [])}), id="bind-failure"),
    pytest.param(Case(claims=[claim(allocation=ALLOCATION, reserved=True)], after={CLAIM: bound()}), id="reserved-okay"),
    pytest.param(None, id="DRA-disabled", marks=skip("the DynamicResourceAllocation feature gate off: Gangplank always runs the plugin")),
    pytest.param(Case(claims=[claim(CLAIM, exactly(cls="does-not-exist"), owner=None)],
                      refused="device class does-not-exist does not exist"), id="claim-with-request-with-unknown-device-class"),
    pytest.param(None, id="claim-with-prioritized-list-feature-disabled",
                 marks=skip("DRAPrioritizedList off: Gangplank's default profile evaluates firstAvailable as with the gate on")),
    pytest.param(Case(claims=[claim(CLAIM, first_available("req-1", ("subreq-1", 1), cls="does-not-exist"), owner=None)],
                      refused="device class does-not-exist does not exist"), id="claim-with-prioritized-list-unknown-device-class"),
    pytest.param(Case(claims=[claim(CLAIM, PL)], classes=[device_class()], slices=[slice_("worker", "instance-1")],
                      in_flight={CLAIM: 1}, after={CLAIM: bound()}), id="claim-with-prioritized-list"),
    *[pytest.param(None, id=name, marks=skip(EXTENDED)) for name in (
        "extended-resource-name-with-node-resource", "extended-resource-one-device-plugin-one-dra",
        "extended-resource-name-with-zero-allocatable", "non-DRA-extended-resource-name-with-zero-allocatable",
        "extended-resource-name-no-resource", "extended-resource-name-with-resources",
        "implicit-extended-resource-name-with-resources", "implicit-extended-resource-name-two-containers-with-resources",
        "extended-resource-name-with-resources-fail-patch", "extended-resource-name-with-resources-has-claim",
        "extended-resource-name-with-resources-delete-claim", "extended-resource-name-bind-failure",
        "extended-resource-name-skip-bind", "extended-resource-name-claim-creation-failure")],  # fmt: skip
    pytest.param(None, id="canceled", marks=skip(TIMEOUT)),
    pytest.param(None, id="timeout", marks=skip(TIMEOUT)),
    pytest.param(WITH_RESOURCES, id="timeout_disabled"),
    pytest.param(WITH_RESOURCES, id="timeout_zero"),
    *[pytest.param(None, id=name, marks=skip(BINDING)) for name in (
        "bound-claim-with-succeeded-binding-conditions", "bound-claim-with-failed-binding",
        "bound-claim-with-timed-out-binding", "prebind-fail-with-binding-timeout",
        "bound-claim-with-mixed-binding-conditions")],  # fmt: skip
    # the gate on, but the claim has no binding conditions: as claim-template
    pytest.param(CLAIM_TEMPLATE, id="bound-claim-without-binding-conditions"),
    pytest.param(None, id="multi-claims-binding-conditions-all-success", marks=skip(BINDING)),
    pytest.param(None, id="multi-claims-binding-conditions-one-fail", marks=skip(BINDING)),
    # Score and NormalizeScore compared; Reserve runs on the best-scored node, as Go's test picks it
    pytest.param(Case(nodes=("worker", "worker-2"),
                      claims=[claim(CLAIM, first_available("req-1", ("subreq-1", 1, BROKEN), ("subreq-2", 1)))],
                      classes=[device_class()], slices=[slice_("worker", healthy(True)), slice_("worker-2", healthy(False))],
                      scores={"worker": (8, 100), "worker-2": (7, 87)}, in_flight={CLAIM: 1}, after={CLAIM: bound()}),
                 id="single-claim-prioritized-list-scoring"),
    pytest.param(Case(pod="two-names", nodes=("worker", "worker-2", "worker-3"),
                      claims=[claim(CLAIM, PL), claim(CLAIM2, first_available("req-1", ("subreq-1", 4), ("subreq-2", 3),
                                                                              ("subreq-3", 2), ("subreq-4", 1)))],
                      classes=[device_class()],
                      slices=[SLICE4, slice_("worker-2", "instance-1", "instance-2"), slice_("worker-3", "instance-1")],
                      filter={"worker": True, "worker-2": True, "worker-3": False},
                      scores={"worker": (15, 100), "worker-2": (13, 86)},
                      in_flight={CLAIM: 1, CLAIM2: 3}, after={CLAIM: bound(1), CLAIM2: bound(3)}),
                 id="multiple-claims-prioritized-list-scoring"),
    pytest.param(Case(nodes=("worker", "worker-2", "worker-3"),
                      claims=[claim(CLAIM, first_available("req-1", ("subreq-1", 2), ("subreq-2", 1)),
                                    first_available("req-2", ("subreq-1", 2), ("subreq-2", 1)))],
                      classes=[device_class()],
                      slices=[SLICE4, slice_("worker-2", "instance-1", "instance-2", "instance-3"),
                              slice_("worker-3", "instance-1", "instance-2")],
                      scores={"worker": (16, 100), "worker-2": (15, 93), "worker-3": (14, 87)},
                      in_flight={CLAIM: 4}, after={CLAIM: bound(4)}),
                 id="multiple-requests-prioritized-list-scoring"),
]


def cluster_of(case: Case) -> Any:
    objs = [*(node(n, gpu=None) for n in case.nodes), podgroup("pg", ns=NS), the_pod(case.pod),
            *case.classes, *case.slices, *case.claims]  # fmt: skip
    return read_request(orjson.loads(orjson.dumps(request(objs, config={"profile": "volcano"}))), Settings()).cluster


@pytest.mark.parametrize("case", CASES)
def test_plugin(case: Case) -> None:
    c = cluster_of(case)
    names = [n.name for n in c.nodes]
    t = c.find_task(f"{NS}/{'foo' if case.pod == 'none' else POD}")
    assert t is not None
    if c.dra is None:  # no DRA object at all: the session builds no plugin (Go's PreFilter: Skip)
        assert case == Case(pod="none")
        return
    dra = DynamicResources(c)

    # PreEnqueue / PreFilter
    refusal = dra.refusal(t)
    if case.refused is not None:
        assert refusal is not None and case.refused in refusal, refusal
        return
    assert refusal is None

    # Filter, per node Go evaluates; then the cycle's outcome
    mask = dra.mask(t, np.arange(len(names)))
    want = case.filter if case.filter is not None else dict.fromkeys(case.nodes, True)
    assert {n: bool(mask[names.index(n)]) for n in want} == want
    schedulable = case.schedulable if case.schedulable is not None else any(want.values())
    assert bool(mask.any()) == schedulable
    if not schedulable:
        assert not dra.in_flight
        return

    # Score and NormalizeScore over the nodes that passed (Go scores when two or more did)
    passed = np.flatnonzero(mask)
    select = case.select
    if len(passed) > 1:
        raw, normal = dra.raw_scores(t, passed).tolist(), dra.score(t, passed).tolist()
        got = {names[i]: (r, s) for i, r, s in zip(passed.tolist(), raw, normal, strict=True)}
        if case.scores is not None:
            assert got == case.scores
        elif any(r for r, _ in got.values()):
            raise AssertionError(f"scores {got}, where Go's case expects none")
        best = max(normal)
        select = select or names[passed[normal.index(best)]] if best > 0 else select

    # Reserve on the node Go selects
    at = names.index(select or next(n for n in case.nodes if mask[names.index(n)]))
    assert mask[at]
    t.node, t.status = at, TaskStatus.ALLOCATED
    dra.placed(t)
    assert {k[1] for k in dra.in_flight} == set(case.in_flight)
    for name, devices in case.in_flight.items():
        allocation, holder = dra.in_flight[(NS, name)]
        assert holder is t and len(allocation.devices) == devices
        assert {(d[0], d[1]) for d in allocation.devices} == {(DRIVER, names[at])}
        assert [allocation.admits(n) for n in c.nodes] == [i == at for i in range(len(names))]
        assert list(allocation.admin or (False,) * devices) == [name in case.admin] * devices

    # Unreserve, or PreBind
    if case.unreserve:
        dra.left(t)
        assert not dra.in_flight
        t.node, t.status = -1, TaskStatus.PENDING
    after = dra.snapshot_after().claims
    for name, (devices, reserved) in case.after.items():
        cl = after[(NS, name)]
        if devices is None:
            assert cl.allocation is None
        else:
            assert cl.allocation is not None and len(cl.allocation.devices) == devices
            assert list(cl.allocation.admin or (False,) * devices) == [name in case.admin] * devices
        assert [ref[3] for ref in cl.reserved_for] == reserved
    if case.in_flight and not case.unreserve:  # PreBind records the allocation Reserve made
        for name in case.in_flight:
            assert after[(NS, name)].allocation is dra.in_flight[(NS, name)][0]
