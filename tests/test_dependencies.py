"""Every package the code imports is declared, with an upper bound on its major version, and
CI installs exact versions (constraints.txt)."""

from __future__ import annotations

import ast
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: import name -> distribution name, where they differ
DISTRIBUTION = {"yaml": "pyyaml", "re2": "google-re2", "prometheus_client": "prometheus-client",
                "pydantic_settings": "pydantic-settings", "PIL": "pillow", "kubernetes_validate": "kubernetes-validate"}  # fmt: skip
OWN = {"app", "api_schemas", "gangplank", "_gangplank_kernels", "bench", "tests", "fuzz"}


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def names(reqs: list[str]) -> dict[str, str]:
    return {re.split(r"[<>=!~ \[]", r, maxsplit=1)[0].lower(): r for r in reqs}


def imported(*dirs: str) -> set[str]:
    out: set[str] = set()
    for d in dirs:
        for f in (ROOT / d).rglob("*.py"):
            for node in ast.walk(ast.parse(f.read_text(), str(f))):
                if isinstance(node, ast.Import):
                    out |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    out.add(node.module.split(".")[0])
    return {m for m in out if m not in sys.stdlib_module_names and m not in OWN}


def test_every_imported_package_of_the_service_is_a_declared_dependency():
    declared = names(project()["dependencies"])
    missing = sorted(m for m in imported("app", "gangplank", "api_schemas") if DISTRIBUTION.get(m, m).lower() not in declared)
    assert not missing, f"imported but not in [project] dependencies: {missing}"


def test_every_package_the_tests_import_is_declared_for_development():
    declared = names(project()["dependencies"]) | names(project()["optional-dependencies"]["dev"])
    missing = sorted(m for m in imported("tests") if DISTRIBUTION.get(m, m).lower() not in declared)
    assert not missing, f"imported by tests but not declared: {missing}"


def test_every_dependency_has_an_upper_bound_on_its_major_version():
    reqs = project()["dependencies"] + [r for group in project()["optional-dependencies"].values() for r in group]
    unbounded = [r for r in reqs if "<" not in r]
    assert not unbounded, unbounded


def test_constraints_pin_every_declared_dependency_within_its_range():
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.lower().replace("_", "-")] = version
    for req in project()["dependencies"] + project()["optional-dependencies"]["dev"]:
        name = names([req]).popitem()[0]
        assert name in pins, f"{name} is not pinned in constraints.txt"
        upper = re.search(r"<(\d+)", req)
        assert upper is not None and int(pins[name].split(".")[0]) < int(upper.group(1)), (req, pins[name])
