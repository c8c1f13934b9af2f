"""deploy/: the kustomization builds and every manifest validates against Kubernetes' schemas."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
KUBECTL = shutil.which("kubectl")


def built() -> list[dict]:
    if KUBECTL is None:
        pytest.skip("kubectl is not installed on this machine")
    out = subprocess.run([KUBECTL, "kustomize", str(ROOT / "deploy" / "base")], check=True, capture_output=True, text=True)
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def test_kustomize_builds_every_object_with_the_namespace():
    kinds = sorted(d["kind"] for d in built())
    assert kinds == ["ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "Deployment", "HorizontalPodAutoscaler", "NetworkPolicy",
                     "PodDisruptionBudget", "Service", "ServiceAccount"]  # fmt: skip
    assert all(d["metadata"].get("namespace") == "gangplank" for d in built() if not d["kind"].startswith("Cluster"))


def test_manifests_validate_against_the_kubernetes_schema():
    import kubernetes_validate

    for doc in built():
        kubernetes_validate.validate(doc, "1.32.0", strict=True)


def test_deployment_is_non_root_read_only_with_probes_and_requests():
    dep = next(d for d in built() if d["kind"] == "Deployment")
    pod = dep["spec"]["template"]["spec"]
    c = pod["containers"][0]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert c["securityContext"]["readOnlyRootFilesystem"] is True and c["securityContext"]["allowPrivilegeEscalation"] is False
    assert c["livenessProbe"]["httpGet"]["path"] == "/livez" and c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert c["resources"]["requests"]["cpu"]


def test_rbac_reads_and_only_creates_pod_bindings():
    roles = {d["metadata"]["name"]: d for d in built() if d["kind"] == "ClusterRole"}
    assert {v for rule in roles["gangplank-reader"]["rules"] for v in rule["verbs"]} == {"get", "list", "watch"}
    assert roles["gangplank-binder"]["rules"] == [{"apiGroups": [""], "resources": ["pods/binding"], "verbs": ["create"]}]
    assert set(roles) == {"gangplank-reader", "gangplank-binder"}


def test_kube_scheduler_configuration_example_has_the_extender_stanza():
    conf = yaml.safe_load((ROOT / "deploy" / "kube-scheduler-config.yaml").read_text())
    ext = conf["extenders"][0]
    assert ext["urlPrefix"].endswith("/extender") and ext["nodeCacheCapable"] is True
    assert {ext["filterVerb"], ext["prioritizeVerb"], ext["preemptVerb"], ext["bindVerb"]} == {"filter", "prioritize", "preempt", "bind"}
