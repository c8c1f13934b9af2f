"""deploy/: the kustomization builds and every manifest validates against Kubernetes' schemas."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
KUBECTL = shutil.which("kubectl")


def built(part: str = "base") -> list[dict]:
    """``kubectl kustomize deploy/<part>``: ``base`` the decision API, ``extender`` the extender."""
    if KUBECTL is None:
        pytest.skip("kubectl is not installed on this machine")
    out = subprocess.run([KUBECTL, "kustomize", str(ROOT / "deploy" / part)], check=True, capture_output=True, text=True)
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def test_kustomize_builds_every_object_with_the_namespace():
    assert sorted(d["kind"] for d in built()) == ["Deployment", "HorizontalPodAutoscaler", "NetworkPolicy",
                                                  "PodDisruptionBudget", "Service", "ServiceAccount"]  # fmt: skip
    assert sorted(d["kind"] for d in built("extender")) == ["ClusterRole", "ClusterRole", "ClusterRoleBinding",
                                                            "ClusterRoleBinding", "Deployment", "NetworkPolicy",
                                                            "Service", "ServiceAccount"]  # fmt: skip
    for part in ("base", "extender"):
        assert all(d["metadata"].get("namespace") == "gangplank" for d in built(part) if not d["kind"].startswith("Cluster"))


def test_manifests_validate_against_the_kubernetes_schema():
    import kubernetes_validate

    for part in ("base", "extender"):
        for doc in built(part):
            kubernetes_validate.validate(doc, "1.32.0", strict=True)


@pytest.mark.parametrize("part", ["base", "extender"])
def test_deployment_is_non_root_read_only_with_probes_and_requests(part):
    dep = next(d for d in built(part) if d["kind"] == "Deployment")
    pod = dep["spec"]["template"]["spec"]
    c = pod["containers"][0]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert c["securityContext"]["readOnlyRootFilesystem"] is True and c["securityContext"]["allowPrivilegeEscalation"] is False
    assert c["livenessProbe"]["httpGet"]["path"] == "/livez" and c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert c["resources"]["requests"]["cpu"]


def test_rbac_reads_and_only_creates_pod_bindings():
    roles = {d["metadata"]["name"]: d for d in built("extender") if d["kind"] == "ClusterRole"}
    assert {v for rule in roles["gangplank-reader"]["rules"] for v in rule["verbs"]} == {"get", "list", "watch"}
    assert roles["gangplank-binder"]["rules"] == [{"apiGroups": [""], "resources": ["pods/binding"], "verbs": ["create"]}]
    assert set(roles) == {"gangplank-reader", "gangplank-binder"}
    bindings = [d for d in built("extender") if d["kind"] == "ClusterRoleBinding"]
    assert all(b["subjects"] == [{"kind": "ServiceAccount", "name": "gangplank-extender", "namespace": "gangplank"}]
               for b in bindings)  # fmt: skip


def test_the_decision_api_has_no_cluster_access():
    sa = next(d for d in built() if d["kind"] == "ServiceAccount")
    assert sa["automountServiceAccountToken"] is False
    policy = next(d for d in built() if d["kind"] == "NetworkPolicy")
    assert [p["port"] for rule in policy["spec"]["egress"] for p in rule["ports"]] == [53, 53]  # DNS only


def test_the_extender_is_one_instance_replaced_not_rolled():
    dep = next(d for d in built("extender") if d["kind"] == "Deployment")
    assert dep["spec"]["replicas"] == 1 and dep["spec"]["strategy"] == {"type": "Recreate"}
    assert not any(d["kind"] == "HorizontalPodAutoscaler" for d in built("extender"))
    env = {e["name"]: e.get("value") for e in dep["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["GANGPLANK_SNAPSHOT_SOURCE"] == "kubernetes" and env["GANGPLANK_EXTENDER_CLIENT_NAMES"] == "kube-scheduler"


def test_the_api_and_the_extender_select_disjoint_pods():
    api = next(d for d in built() if d["kind"] == "Service")["spec"]["selector"]
    ext = next(d for d in built("extender") if d["kind"] == "Service")["spec"]["selector"]
    assert api["app.kubernetes.io/component"] == "api" and ext["app.kubernetes.io/component"] == "extender"
    for part, component in (("base", "api"), ("extender", "extender")):
        dep = next(d for d in built(part) if d["kind"] == "Deployment")
        assert dep["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"] == component


def test_kube_scheduler_configuration_example_has_the_extender_stanza():
    conf = yaml.safe_load((ROOT / "deploy" / "kube-scheduler-config.yaml").read_text())
    ext = conf["extenders"][0]
    assert ext["urlPrefix"].endswith("/extender") and ext["nodeCacheCapable"] is True
    assert {ext["filterVerb"], ext["prioritizeVerb"], ext["preemptVerb"], ext["bindVerb"]} == {"filter", "prioritize", "preempt", "bind"}


def test_kube_scheduler_example_runs_as_a_second_scheduler_asking_the_extender_about_every_pod():
    conf = yaml.safe_load((ROOT / "deploy" / "kube-scheduler-config.yaml").read_text())
    assert conf["leaderElection"] == {"leaderElect": True, "resourceName": "gangplank-scheduler",
                                      "resourceNamespace": "kube-system"}  # its own lease  # fmt: skip
    assert [p["schedulerName"] for p in conf["profiles"]] == ["gangplank-scheduler"]
    assert "managedResources" not in conf["extenders"][0]  # CPU-only gangs reach the extender too
