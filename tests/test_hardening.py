"""Container and process hardening: non-root, read-only root filesystem, no capabilities,
writes only under /tmp; no endpoint reads a file or URL named in a request; logs carry no
request bodies and are bounded in size."""

from __future__ import annotations

import ast
import json
import logging
import os
import pathlib
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import orjson
import pytest
import yaml

from app.observability import MAX_LOG_FIELD, JsonFormatter
from tests.kube import node, pod, request

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = ROOT / "app"

# -- manifests and image -------------------------------------------------------------------------


def deployment() -> dict:
    return yaml.safe_load((ROOT / "deploy" / "base" / "deployment.yaml").read_text())


def test_deployment_drops_all_capabilities_and_runs_non_root_read_only():
    pod_spec = deployment()["spec"]["template"]["spec"]
    psc = pod_spec["securityContext"]
    assert psc["runAsNonRoot"] is True and psc["runAsUser"] != 0
    assert psc["seccompProfile"]["type"] == "RuntimeDefault"
    for c in pod_spec["containers"]:
        sc = c["securityContext"]
        assert sc["readOnlyRootFilesystem"] is True
        assert sc["allowPrivilegeEscalation"] is False
        assert sc["capabilities"]["drop"] == ["ALL"] and not sc["capabilities"].get("add")
        assert not sc.get("privileged")


def test_deployment_writable_paths_are_only_tmp_on_an_emptydir():
    pod_spec = deployment()["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod_spec["volumes"]}
    for c in pod_spec["containers"]:
        writable = [m for m in c["volumeMounts"] if not m.get("readOnly")]
        assert [m["mountPath"] for m in writable] == ["/tmp"]
        assert "emptyDir" in volumes[writable[0]["name"]]


def test_image_user_is_the_deployment_user():
    from tests.test_deploy_files import args_of, final_stage

    image_user = args_of(final_stage(), "USER")[-1].split(":")[0]
    assert image_user == str(deployment()["spec"]["template"]["spec"]["securityContext"]["runAsUser"]) != "0"


# -- what the code may read and write -------------------------------------------------------------

#: Modules that open files, and where the file's name comes from (never from a request).
READS = {
    "app/auth.py": "GANGPLANK_AUTH_TOKENS_FILE (settings)",
    "app/extender/source.py": "GANGPLANK_SNAPSHOT_DIR (settings)",
    "app/extender/kubeconfig.py": "KUBECONFIG / the in-cluster service account (environment)",
    "app/api/ui.py": "fixed files of the package and the checkout",
    "app/api/docs.py": "fixed files of the installed fastapi-offline package (Swagger UI, ReDoc)",
}
#: Modules that open network connections, and to where (never a URL from a request).
NETWORK = {
    "app/extender/kubeapi.py": "the Kubernetes API server of the configured kubeconfig",
    "app/extender/kubeconfig.py": "the Kubernetes API server of the configured kubeconfig",
}
#: Modules that run programs, and which (never a command from a request).
RUNS = {
    "app/extender/kubeconfig.py": "the exec credential plugin of the operator's kubeconfig",
}
#: Modules that write files, and where.
WRITES = {
    "app/extender/kubeconfig.py": "inline kubeconfig credentials into a tempfile.TemporaryDirectory (under /tmp)",
}
NET_MODULES = {"httpx", "urllib", "urllib.request", "socket", "requests", "aiohttp", "http.client"}


def scan() -> dict[str, set[str]]:
    """Per module: 'read', 'write', 'network' for the calls and imports found in its AST."""
    found: dict[str, set[str]] = {}
    for path in sorted(APP.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text())
        kinds: set[str] = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Import | ast.ImportFrom):
                names = [a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""]
                if any(x in NET_MODULES or x.split(".")[0] in NET_MODULES for x in names):
                    kinds.add("network")
                if any(x == "tempfile" for x in names):
                    kinds.add("write")
                if any(x.split(".")[0] in ("subprocess", "multiprocessing", "pty") for x in names):
                    kinds.add("run")
            if not isinstance(n, ast.Call):
                continue
            f = n.func
            if isinstance(f, ast.Name) and f.id == "open":
                mode = n.args[1] if len(n.args) > 1 else next((k.value for k in n.keywords if k.arg == "mode"), None)
                text = mode.value if isinstance(mode, ast.Constant) else "r"
                kinds.add("write" if any(ch in str(text) for ch in "wax+") else "read")
            elif isinstance(f, ast.Attribute):
                if f.attr in ("read_text", "read_bytes"):
                    kinds.add("read")
                elif f.attr in ("write_text", "write_bytes", "mkdir", "makedirs", "touch", "unlink", "rmtree"):
                    kinds.add("write")
                elif f.attr in ("rename", "replace", "remove", "copyfile", "move") and isinstance(f.value, ast.Name) \
                        and f.value.id in ("os", "shutil"):  # not str.replace
                    kinds.add("write")
                elif f.attr in ("open", "fdopen") and isinstance(f.value, ast.Name) and f.value.id in ("os", "io"):
                    kinds.add("write" if f.value.id == "os" or f.attr == "fdopen" else "read")
        if kinds:
            found[rel] = kinds
    return found


def test_only_reviewed_modules_read_files():
    readers = {m for m, k in scan().items() if "read" in k}
    assert readers <= set(READS), f"new file reads to review (and list in READS): {sorted(readers - set(READS))}"


def test_only_reviewed_modules_open_network_connections():
    net = {m for m, k in scan().items() if "network" in k}
    assert net <= set(NETWORK), f"new network access to review (and list in NETWORK): {sorted(net - set(NETWORK))}"


def test_only_reviewed_modules_run_programs():
    runners = {m for m, k in scan().items() if "run" in k}
    assert runners <= set(RUNS), f"new program runs to review (and list in RUNS): {sorted(runners - set(RUNS))}"
    assert runners, "the scan finds the kubeconfig's exec plugin runner"


def test_nothing_writes_outside_tmp():
    writers = {m for m, k in scan().items() if "write" in k}
    assert writers <= set(WRITES), f"new file writes to review (and list in WRITES): {sorted(writers - set(WRITES))}"
    for module in writers:
        assert "tempfile" in (ROOT / module).read_text(), module  # under tempfile's directory: /tmp in the image


# -- behaviour: a request naming a file or URL makes the service touch neither --------------------

_events: list[tuple[str, tuple]] | None = None


def _audit(event: str, args: tuple) -> None:
    if _events is not None and event in ("open", "socket.connect", "socket.getaddrinfo", "urllib.Request",
                                         "os.mkdir", "os.rename", "os.remove", "shutil.copyfile"):  # fmt: skip
        _events.append((event, args))


sys.addaudithook(_audit)  # process-wide and permanent; records only inside `audited()`


@contextmanager
def audited() -> Iterator[list[tuple[str, tuple]]]:
    global _events
    _events = []
    try:
        yield _events
    finally:
        _events = None


def hostile_bodies(secret: pathlib.Path) -> list[tuple[str, bytes, str]]:
    p = str(secret)
    urls = [p, "file://" + p, "http://127.0.0.1:9/steal", "https://example.invalid/x"]
    out: list[tuple[str, bytes, str]] = []
    for target in urls:
        objs = [node("n0"), pod(target[:60].replace("/", "-").strip("-") or "p", annotations={"x": target}),
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "volcano-controller-configmap"},
                 "data": {"volcano-controller.conf": target}},
                {"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode", "metadata": {"name": "h"},
                 "spec": {"tier": 1, "members": [{"type": "Node", "selector": {"regexMatch": {"pattern": target}}}]}}]  # fmt: skip
        envelopes = [
            {**request(objs), "config": target},
            {**request(objs), "options": {"topology": target}},
            {"objects": target},
            {"cluster": target, "config": {"profile": target}},
        ]
        for env in envelopes:
            for path in ("/v1/decisions", "/v1/topology", "/v1/simulate", "/v1/scores"):
                out.append((path, orjson.dumps({**env, "job": "default/p", "cycles": 1}), "application/json"))
        out.append(("/v1/decisions", f"objects: !include {target}\n".encode(), "application/yaml"))
        out.append(("/v1/decisions", f"config: !!python/object/apply:os.system ['cat {target}']\n".encode(),
                    "application/yaml"))  # fmt: skip
        out.append(("/extender/filter", orjson.dumps({"Pod": {"metadata": {"name": target, "namespace": target}},
                                                      "NodeNames": [target]}), "application/json"))  # fmt: skip
    return out


def test_no_endpoint_reads_files_or_urls_named_in_a_request(client, tmp_path):
    secret = tmp_path / "secret.yaml"
    marker = "gangplank-hardening-marker-7f3a"
    secret.write_text(f"objects: []\nconfig: {marker}\n")
    bodies = hostile_bodies(secret)
    with audited() as events:
        answers = [client.post(path, content=body, headers={"Content-Type": ct}) for path, body, ct in bodies]
    for (path, _, _), r in zip(bodies, answers, strict=True):
        assert r.status_code < 500, (path, r.status_code, r.text[:300])
        assert marker not in r.text
    opened = [a[0] for e, a in events if e == "open"]
    assert not [o for o in opened if str(secret) in str(o)], "a file named in a request was opened"
    assert not [e for e, _ in events if e in ("socket.connect", "socket.getaddrinfo", "urllib.Request")], \
        "a request made the service open a network connection"
    assert not [e for e, _ in events if e in ("os.mkdir", "os.rename", "os.remove", "shutil.copyfile")]


def test_serving_requests_writes_no_file(client):
    body = orjson.dumps(request([node("n0"), pod("p", cpu="1")]))
    with audited() as events:
        for path in ("/v1/decisions", "/v1/topology", "/v1/simulate"):
            assert client.post(path, content=body, headers={"Content-Type": "application/json"}).status_code == 200
    writes = []
    for e, a in events:
        if e == "open" and isinstance(a[0], str | bytes | os.PathLike):
            mode, flags = a[1], a[2] if len(a) > 2 else 0
            if (mode and any(ch in mode for ch in "wax+")) or (isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)):
                writes.append(a[0])
    assert all(str(w).startswith(tempfile.gettempdir()) for w in writes), writes


# -- logs ------------------------------------------------------------------------------------------


@contextmanager
def captured_log_lines() -> Iterator[list[str]]:
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(JsonFormatter().format(record))

    handler = Keep()
    logger = logging.getLogger("gangplank")
    logger.addHandler(handler)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)


def test_logs_never_include_request_bodies(client):
    marker = "body-marker-" + "q" * 40
    valid = request([node("n0", labels={"rack": marker[:60]}), pod("p", annotations={"note": marker})])
    invalid = request([node("n0"), pod("p", annotations={"note": marker}, cpu="lots")])
    big = request([node("n0"), pod("p", annotations={"note": marker * 20_000})])  # 1 MiB of annotations -> 413
    with captured_log_lines() as lines:
        for body in (valid, invalid, big):
            client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
        client.post("/v1/decisions", content=b"{" + marker.encode() * 1000, headers={"Content-Type": "application/json"})
    access = [json.loads(x) for x in lines if '"gangplank.access"' in x]
    assert len(access) == 4 and {a["status"] for a in access} == {200, 400, 413, 422}
    assert not [x for x in lines if "marker" in x]
    assert max(len(x) for x in lines) < 1024


def test_log_lines_are_bounded_even_for_long_paths(client):
    with captured_log_lines() as lines:
        client.get("/v1/" + "x" * 10_000)
    assert lines and max(len(x) for x in lines) < MAX_LOG_FIELD + 1024
    assert "more characters" in lines[-1]


@pytest.mark.parametrize("length", [10, MAX_LOG_FIELD, MAX_LOG_FIELD + 1])
def test_log_fields_are_cut_past_the_limit(length):
    rec = logging.LogRecord("gangplank.x", logging.INFO, __file__, 1, "m", None, None)
    rec.fields = {"path": "p" * length}
    out = json.loads(JsonFormatter().format(rec))["path"]
    assert out.startswith("p" * min(length, MAX_LOG_FIELD))
    assert (len(out) == length) is (length <= MAX_LOG_FIELD)


def test_each_request_is_logged_once_as_json_with_an_rfc3339_utc_time():
    # uvicorn's plain access line is off; its own log lines are JSON too
    import logging.config

    from app.observability import UVICORN_LOG_CONFIG
    from app.serve import parser, uvicorn_options
    from app.settings import Settings

    opts = uvicorn_options(parser().parse_args([]), Settings())
    assert opts["access_log"] is False and opts["log_config"] is UVICORN_LOG_CONFIG
    logging.config.dictConfig(UVICORN_LOG_CONFIG)
    handler = logging.getLogger("uvicorn").handlers[0]
    assert isinstance(handler.formatter, JsonFormatter)
    rec = logging.LogRecord("uvicorn.error", logging.INFO, __file__, 1, "Started server process", None, None)
    rec.created = 1795000000.25
    line = json.loads(handler.formatter.format(rec))
    assert line["time"] == "2026-11-18T11:06:40.250Z" and line["logger"] == "uvicorn.error"
