"""What the ``TestFindTopologyAssignments`` transcriptions (``tests/test_kueue_tas_find_upstream_*.py``)
share: the Kueue objects around the one Workload ``ml/w`` a case posts, and the check of its
answer against the Go table's ``wantAssignment`` / ``wantReason``."""

from __future__ import annotations

from typing import Any

from tests.test_admissions import domains

OS = "kubernetes.io/os"  # the TAS flavor's nodeLabel where a Go case has none: every node carries it
V2 = "kueue.x-k8s.io/v1beta2"
#: ample quota per resource (quota is never the reason in these tables)
QUOTA = {"memory": "100000Ti"}


def kueue_objects(levels: list[str], resources: list[str], *, node_labels: dict[str, str] | None = None,
                  gates: dict[str, bool] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Topology ``default`` with ``levels``, TAS ResourceFlavor ``tas`` (``node_labels`` or
    ``kubernetes.io/os: linux``), ClusterQueue ``cq`` covering ``resources`` with ample quota on
    ``tas`` alone, LocalQueue ``ml/lq``; ``gates`` in a Kueue Configuration."""
    objs: list[dict[str, Any]] = [
        {"apiVersion": V2, "kind": "Topology", "metadata": {"name": "default"},
         "spec": {"levels": [{"nodeLabel": k} for k in levels]}},
        {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "tas"},
         "spec": {"nodeLabels": node_labels or {OS: "linux"}, "topologyName": "default"}},
        {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": resources, "flavors": [
             {"name": "tas", "resources": [{"name": r, "nominalQuota": QUOTA.get(r, "100000")} for r in resources]}]}]}},
        {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ml"},
         "spec": {"clusterQueue": "cq"}},
    ]  # fmt: skip
    if gates:
        objs.append({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": gates})
    return objs


def check(w: dict[str, Any], want: dict[str, Any]) -> None:
    """``want``: podSet -> (levels, [(values, count)]) when the Workload is admitted, in Kueue's
    order; or podSet -> the Go ``wantReason``, each a part of the message of a Workload not
    admitted (a Workload is admitted whole: the other podSets' assignments are not observable)."""
    reasons = [v for v in want.values() if isinstance(v, str)]
    if reasons:
        assert w["admitted"] is False, w
        for reason in reasons:
            assert reason in w["message"], w["message"]
        return
    assert (w["admitted"], w["reason"]) == (True, "Admitted"), w
    got = {p["name"]: (p["topologyAssignment"]["levels"], domains(p)) for p in w["podSets"]}
    assert got == want
