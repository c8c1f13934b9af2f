"""Kueue's ``checkPodSetAndFlavorMatchForTAS`` (``tas_flavorassigner.go``) on a ClusterQueue with
a TAS flavor ``tas`` first and a flavor without topology ``plain`` second, rule by rule through
``/v1/admissions``."""

from __future__ import annotations

from typing import Any

from tests.kube import request
from tests.test_admissions import one
from tests.test_kueue_tas_snapshot_upstream import kueue_objects, pod_set, tnode, workload


def mixed(client, tr: dict | None, plain_covers: str = "cpu") -> dict[str, Any]:  # type: ignore[no-untyped-def]
    objs = kueue_objects(["l1"])
    objs.insert(2, {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "plain"}, "spec": {}})
    cq = next(o for o in objs if o["kind"] == "ClusterQueue")
    if plain_covers == "cpu":
        cq["spec"]["resourceGroups"][0]["flavors"].append({"name": "plain", "resources": [{"name": "cpu", "nominalQuota": "1000"}]})
    else:  # plain alone in a second group covering another resource
        cq["spec"]["resourceGroups"].append({"coveredResources": [plain_covers], "flavors": [
            {"name": "plain", "resources": [{"name": plain_covers, "nominalQuota": "1000"}]}]})  # fmt: skip
    r = client.post("/v1/admissions", json=request([tnode("n1", 4, {"l1": "x"})] + objs, workloads=[workload(pod_set(tr=tr))]))
    assert r.status_code == 200, r.text
    return one(r.json(), "ml/w")


def assigned(w: dict[str, Any]) -> tuple[dict[str, str], bool]:
    psa = w["admission"]["podSetAssignments"][0]
    return psa["flavors"], psa.get("topologyAssignment") is not None


def test_a_podset_not_requesting_tas_skips_tas_flavors(client) -> None:
    """Rule: "Flavor %q supports only TopologyAwareScheduling": a podSet without a topology
    request in a ClusterQueue that is not TAS-only takes the flavor without topology, and gets
    no topology assignment."""
    assert assigned(mixed(client, None)) == ({"cpu": "plain"}, False)


def test_a_podset_requesting_tas_skips_flavors_without_topology(client) -> None:
    """Rule: "Flavor %q does not support TopologyAwareScheduling" when the flavor's resource
    group covers a resource the podSet asks for: a podSet requiring ``l1`` takes ``tas``."""
    assert assigned(mixed(client, {"required": "l1"})) == ({"cpu": "tas"}, True)


def test_a_podset_requesting_tas_keeps_a_plain_flavor_for_resources_it_does_not_share(client) -> None:
    """Rule: a flavor without topology whose group covers no resource the podSet asks for is
    still a match (quota-only resources): the podSet asking cpu alone takes ``tas`` for cpu
    and is admitted with a topology assignment."""
    assert assigned(mixed(client, {"required": "l1"}, plain_covers="example.com/quota-only")) == ({"cpu": "tas"}, True)


def test_a_podset_asking_for_a_level_the_tas_flavor_lacks_waits_with_kueues_reason(client) -> None:
    """Rule: ``HasLevel``: the TAS flavor's Topology has no ``l9``; the flavor without topology
    does not support TAS: the Workload waits, not a 422, with Kueue's reasons."""
    w = mixed(client, {"required": "l9"})
    assert w["admitted"] is False
    assert 'Flavor "tas" does not contain the requested level' in w["message"]
    assert 'Flavor "plain" does not support TopologyAwareScheduling' in w["message"]
