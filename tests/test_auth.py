"""Authentication: bearer tokens, client certificates (mTLS), open health endpoints, and the
launcher's refusal to serve a non-loopback address without authentication."""

from __future__ import annotations

import datetime
import ipaddress
import os
import pathlib
import socket
import ssl
import subprocess
import sys
import threading
import time

import httpx
import pytest
import uvicorn
import yaml
from fastapi.testclient import TestClient

from app.auth import MIN_TOKEN_LENGTH, OPEN_PATHS, Policy, is_loopback, parse_tokens, startup_problems
from app.serve import effective_settings, parser, peer_names, rfc4514, tls_extension, uvicorn_options
from app.settings import Settings, get_settings

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = (ROOT / "examples" / "volcano-small.json").read_bytes()
TOKEN = "t0ken-" + "a" * 26
OTHER = "t0ken-" + "b" * 26
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def app_with(monkeypatch):
    """A fresh app whose settings come from the given GANGPLANK_* variables."""

    def make(**env: str) -> TestClient:
        for k in list(os.environ):
            if k.startswith(("GANGPLANK_AUTH", "GANGPLANK_SSL", "GANGPLANK_EXTENDER", "GANGPLANK_METRICS")):
                monkeypatch.delenv(k)
        for k, v in env.items():
            monkeypatch.setenv(f"GANGPLANK_{k.upper()}", v)
        get_settings.cache_clear()
        from app.main import create_app

        return TestClient(create_app(), raise_server_exceptions=False)

    yield make
    get_settings.cache_clear()


def bearer(token: str) -> dict[str, str]:
    return {**JSON, "Authorization": f"Bearer {token}"}


# -- bearer tokens -------------------------------------------------------------------------------


def test_token_required_on_decision_endpoints(app_with):
    c = app_with(auth_token=TOKEN)
    r = c.post("/v1/decisions", content=EXAMPLE, headers=JSON)
    assert r.status_code == 401
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.headers["www-authenticate"].startswith("Bearer")
    assert r.json()["type"].endswith("/unauthorized") and r.json()["status"] == 401
    assert "x-request-id" in r.headers  # refused requests are still logged with their id


def test_valid_token_accepted(app_with):
    c = app_with(auth_token=TOKEN)
    r = c.post("/v1/decisions", content=EXAMPLE, headers=bearer(TOKEN))
    assert r.status_code == 200
    assert len(r.json()["bindings"]) == 2


def test_wrong_token_rejected(app_with):
    c = app_with(auth_token=TOKEN)
    for headers in (bearer(OTHER), bearer(TOKEN[:-1]), bearer(TOKEN + "x"), bearer(""),
                    {**JSON, "Authorization": f"Basic {TOKEN}"}):  # fmt: skip
        r = c.post("/v1/decisions", content=EXAMPLE, headers=headers)
        assert r.status_code == 401, headers
        assert r.headers["www-authenticate"].startswith("Bearer")


def test_token_scheme_is_case_insensitive(app_with):
    c = app_with(auth_token=TOKEN)
    assert c.post("/v1/decisions", content=EXAMPLE, headers={**JSON, "Authorization": f"bearer {TOKEN}"}).status_code == 200


def test_extender_and_every_v1_endpoint_protected(app_with):
    c = app_with(auth_token=TOKEN)
    for path in ("/v1/decisions", "/v1/scores", "/v1/simulate", "/v1/topology",
                 "/extender/filter", "/extender/prioritize", "/extender/preempt", "/extender/bind"):  # fmt: skip
        assert c.post(path, content=b"{}", headers=JSON).status_code == 401, path
        # with the token the request reaches the endpoint, which judges the (empty) body
        assert c.post(path, content=b"{}", headers=bearer(TOKEN)).status_code != 401, path


def test_unknown_paths_are_protected_by_default(app_with):
    c = app_with(auth_token=TOKEN)
    assert c.get("/v2/anything").status_code == 401
    assert c.get("/v2/anything", headers=bearer(TOKEN)).status_code == 404


def test_health_version_metrics_and_docs_open(app_with):
    c = app_with(auth_token=TOKEN)
    for path in ("/livez", "/readyz", "/version", "/metrics", "/openapi.json", "/docs"):
        assert c.get(path).status_code == 200, path


def test_extender_token_is_the_only_credential_the_extender_takes_once_set(app_with):
    c = app_with(auth_token=TOKEN, extender_token=OTHER)
    body = b'{"Pod": {"metadata": {"name": "p", "namespace": "default"}}, "NodeNames": []}'
    r = c.post("/extender/filter", content=body, headers=bearer(TOKEN))  # the API's token: not kube-scheduler
    assert r.status_code == 401 and "GANGPLANK_EXTENDER" in r.json()["detail"]
    assert c.post("/extender/filter", content=body, headers=bearer(OTHER)).status_code != 401
    assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(OTHER)).status_code == 401  # extender only
    assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(TOKEN)).status_code == 200


def test_extender_without_its_own_credentials_takes_the_apis(app_with):
    c = app_with(auth_token=TOKEN)
    body = b'{"Pod": {"metadata": {"name": "p", "namespace": "default"}}, "NodeNames": []}'
    assert c.post("/extender/filter", content=body, headers=bearer(TOKEN)).status_code != 401


def test_metrics_behind_the_apis_credentials_when_asked(app_with):
    c = app_with(auth_token=TOKEN, metrics_auth="true")
    assert c.get("/metrics").status_code == 401
    assert c.get("/metrics", headers=bearer(TOKEN)).status_code == 200
    assert c.get("/livez").status_code == 200


def test_startup_refused_on_bad_extender_credentials():
    assert any("GANGPLANK_EXTENDER_TOKEN is shorter" in p for p in startup_problems("127.0.0.1", Settings(extender_token="short")))
    assert any("GANGPLANK_EXTENDER_CLIENT_NAMES needs TLS" in p
               for p in startup_problems("127.0.0.1", Settings(auth_token=TOKEN, extender_client_names="kube-scheduler")))  # fmt: skip


def test_open_paths_are_exactly_the_get_routes_outside_v1_and_extender(app_with):
    from fastapi.routing import APIRoute
    from starlette.routing import Route

    def flat(routes):  # FastAPI keeps included routers as nodes (paths are full; no prefixes here)
        for r in routes:
            inner = getattr(r, "original_router", None)
            yield from flat(inner.routes) if inner is not None else [r]

    c = app_with(auth_token=TOKEN)
    routes = [r for r in flat(c.app.routes) if isinstance(r, (APIRoute, Route))]
    assert any(r.path == "/v1/decisions" for r in routes)
    public = {r.path for r in routes if "GET" in (r.methods or ()) and not r.path.startswith(("/v1/", "/extender/"))}
    assert public == set(OPEN_PATHS), "a GET route outside /v1 and /extender must be listed in OPEN_PATHS (or moved)"
    for r in routes:
        if r.path.startswith(("/v1/", "/extender/")):
            assert r.path not in OPEN_PATHS
    for path in sorted(public):
        assert c.get(path).status_code != 401, path  # the browser page loads without a token


def test_no_auth_configured_serves_openly_on_loopback(app_with):
    c = app_with()
    assert c.post("/v1/decisions", content=EXAMPLE, headers=JSON).status_code == 200


def test_tokens_file_reloaded_when_it_changes(app_with, tmp_path):
    f = tmp_path / "tokens"
    f.write_text(f"# rotated weekly\n\n{TOKEN}\n")
    c = app_with(auth_tokens_file=str(f))
    assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(TOKEN)).status_code == 200
    assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(OTHER)).status_code == 401
    # rotate: write the new file beside and rename over (as a Secret volume update does)
    new = tmp_path / "tokens.new"
    new.write_text(f"{OTHER}\n")
    os.replace(new, f)
    assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(OTHER)).status_code == 200
    assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(TOKEN)).status_code == 401
    # in-place rewrite with the same size: the mtime tells
    f.write_text(f"{TOKEN}\n")
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(TOKEN)).status_code == 200
    # a vanished file accepts no token from it (fails closed)
    f.unlink()
    assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(TOKEN)).status_code == 401


def test_tokens_file_and_single_token_both_accepted(app_with, tmp_path):
    f = tmp_path / "tokens"
    f.write_text(f"{OTHER}\n")
    c = app_with(auth_tokens_file=str(f), auth_token=TOKEN)
    assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(TOKEN)).status_code == 200
    assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(OTHER)).status_code == 200


def test_tokens_file_skips_comments_blank_and_short_lines():
    tokens, short = parse_tokens(f"# a comment\n\n  {TOKEN}  \nshort\n{OTHER}\n")
    assert tokens == [TOKEN, OTHER]
    assert short == 1
    assert len("short") < MIN_TOKEN_LENGTH


# -- startup refusal -----------------------------------------------------------------------------


def test_loopback_hosts_are_recognised():
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.7", "gangplank.example"))


def test_startup_refused_on_0_0_0_0_without_auth():
    problems = startup_problems("0.0.0.0", Settings())
    assert len(problems) == 1 and "GANGPLANK_AUTH_DISABLED=true" in problems[0]
    assert startup_problems("::", Settings())


def test_startup_refused_by_the_launcher_process(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GANGPLANK_")}
    out = subprocess.run([sys.executable, "-m", "app.serve", "--host", "0.0.0.0", "--port", "1"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert out.returncode == 2
    assert "refusing to serve on 0.0.0.0 without authentication" in out.stderr


def test_startup_allowed_on_loopback_with_auth_or_with_explicit_opt_out(tmp_path):
    f = tmp_path / "tokens"
    f.write_text(TOKEN + "\n")
    assert startup_problems("127.0.0.1", Settings()) == []
    assert startup_problems("0.0.0.0", Settings(auth_token=TOKEN)) == []
    assert startup_problems("0.0.0.0", Settings(auth_tokens_file=str(f))) == []
    assert startup_problems("0.0.0.0", Settings(auth_disabled=True)) == []
    mtls = Settings(ssl_certfile="s.pem", ssl_keyfile="s.key", ssl_ca_certs="ca.pem")
    assert startup_problems("0.0.0.0", mtls) == []


def test_startup_refused_on_bad_auth_configuration(tmp_path):
    empty = tmp_path / "empty"
    empty.write_text("# nothing yet\n")
    cases = {
        "shorter than": Settings(auth_token="short"),
        "cannot be read": Settings(auth_tokens_file=str(tmp_path / "missing")),
        "holds no usable token": Settings(auth_tokens_file=str(empty)),
        "contradicts": Settings(auth_disabled=True, auth_token=TOKEN),
        "AUTH_CLIENT_NAMES needs TLS": Settings(auth_client_names="kube-scheduler", auth_token=TOKEN),
        "CA_CERTS needs": Settings(ssl_ca_certs="ca.pem", auth_token=TOKEN),
    }
    for needle, s in cases.items():
        assert any(needle in p for p in startup_problems("127.0.0.1", s)), needle


def test_non_loopback_request_without_auth_configured_gets_503():
    scope = {"type": "http", "server": ("10.1.2.3", 8080), "headers": []}
    assert Policy(Settings()).check(scope)[0] == 503
    assert Policy(Settings(auth_disabled=True)).check(scope) is None
    assert Policy(Settings()).check({**scope, "server": ("127.0.0.1", 8080)}) is None
    assert Policy(Settings()).check({**scope, "server": ("::1", 8080)}) is None


def test_openapi_declares_security_on_protected_operations_only(client):
    doc = client.get("/openapi.json").json()
    assert set(doc["components"]["securitySchemes"]) == {"bearerAuth", "mutualTLS"}
    for path, ops in doc["paths"].items():
        for op in ops.values():
            protected = path.startswith(("/v1/", "/extender/"))
            assert ("security" in op) is protected, path
            assert ("401" in op["responses"]) is protected, path


# -- container and manifests wire authentication in ----------------------------------------------


def test_deployment_reads_tokens_from_a_mounted_secret():
    dep = yaml.safe_load((ROOT / "deploy" / "base" / "deployment.yaml").read_text())
    pod = dep["spec"]["template"]["spec"]
    c = pod["containers"][0]
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    path = env["GANGPLANK_AUTH_TOKENS_FILE"]
    assert "GANGPLANK_AUTH_DISABLED" not in env
    volumes = {v["name"]: v for v in pod["volumes"]}
    mount = next(m for m in c["volumeMounts"] if path.startswith(m["mountPath"].rstrip("/") + "/"))
    assert mount.get("readOnly") is True
    secret = volumes[mount["name"]]["secret"]
    assert path.removeprefix(mount["mountPath"].rstrip("/") + "/") in {i["path"] for i in secret["items"]}


# -- rendering the client certificate -----------------------------------------------------------


def test_client_certificate_names_are_cn_and_sans():
    cert = {"subject": ((("organizationName", "Acme, Inc."),), (("commonName", "kube-scheduler"),)),
            "subjectAltName": (("DNS", "scheduler.kube-system.svc"), ("email", "x@y"), ("IP Address", "10.0.0.1"))}  # fmt: skip
    assert peer_names(cert) == ["10.0.0.1", "kube-scheduler", "scheduler.kube-system.svc"]
    assert rfc4514(cert["subject"]) == "CN=kube-scheduler,O=Acme\\, Inc."
    assert tls_extension(None) is None


def test_launcher_options_carry_tls_into_uvicorn():
    args = parser().parse_args(["--host", "0.0.0.0", "--ssl-certfile", "s.pem", "--ssl-keyfile", "s.key",
                                "--ssl-ca-certs", "ca.pem"])  # fmt: skip
    s = effective_settings(args, Settings())
    opts = uvicorn_options(args, s)
    assert (opts["ssl_certfile"], opts["ssl_keyfile"], opts["ssl_ca_certs"], opts["ssl_cert_reqs"]) == (
        "s.pem", "s.key", "ca.pem", 2)
    assert opts["http"] == "app.serve:TLSH11Protocol"
    assert startup_problems("0.0.0.0", s) == []
    plain = uvicorn_options(parser().parse_args([]), Settings())
    assert "ssl_certfile" not in plain and plain["host"] == "127.0.0.1"


# -- a real mTLS server --------------------------------------------------------------------------


def _pki(tmp: pathlib.Path) -> dict[str, pathlib.Path]:
    """A CA, a server certificate for 127.0.0.1, two clients of that CA and one of a rogue CA."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def name(cn: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def write_key(key: ec.EllipticCurvePrivateKey, path: pathlib.Path) -> None:
        path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))  # fmt: skip

    def ca(cn: str) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(name(cn)).issuer_name(name(cn)).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                             content_commitment=False, key_encipherment=False, data_encipherment=False,
                                             key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
                .sign(key, hashes.SHA256()))  # fmt: skip
        return cert, key

    def leaf(cn: str, issuer: tuple, usage, sans: list, stem: str) -> None:
        ca_cert, ca_key = issuer
        key = ec.generate_private_key(ec.SECP256R1())
        b = (x509.CertificateBuilder().subject_name(name(cn)).issuer_name(ca_cert.subject).public_key(key.public_key())
             .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
             .not_valid_after(now + datetime.timedelta(days=1))
             .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
             .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
             .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False))  # fmt: skip
        if sans:
            b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        (tmp / f"{stem}.pem").write_bytes(b.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM))
        write_key(key, tmp / f"{stem}.key")

    good = ca("gangplank-test-ca")
    rogue = ca("rogue-ca")
    (tmp / "ca.pem").write_bytes(good[0].public_bytes(serialization.Encoding.PEM))
    leaf("gangplank", good, ExtendedKeyUsageOID.SERVER_AUTH,
         [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")], "server")  # fmt: skip
    leaf("kube-scheduler", good, ExtendedKeyUsageOID.CLIENT_AUTH, [], "client")
    leaf("someone-else", good, ExtendedKeyUsageOID.CLIENT_AUTH, [x509.DNSName("other.example")], "other")
    leaf("kube-scheduler", rogue, ExtendedKeyUsageOID.CLIENT_AUTH, [], "rogue")
    return {p.stem + p.suffix: p for p in tmp.iterdir()}


class TLSServer:
    """uvicorn with the launcher's protocol and TLS options, in a thread, on 127.0.0.1."""

    def __init__(self, app, pki: dict[str, pathlib.Path], cert_reqs: int) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off",
                                http="app.serve:TLSH11Protocol", ssl_certfile=str(pki["server.pem"]),
                                ssl_keyfile=str(pki["server.key"]), ssl_ca_certs=str(pki["ca.pem"]),
                                ssl_cert_reqs=cert_reqs)  # fmt: skip
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> TLSServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "uvicorn did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()

    def client(self, pki: dict[str, pathlib.Path], cert: str | None) -> httpx.Client:
        ctx = ssl.create_default_context(cafile=str(pki["ca.pem"]))
        if cert:
            ctx.load_cert_chain(str(pki[f"{cert}.pem"]), str(pki[f"{cert}.key"]))
        return httpx.Client(base_url=f"https://127.0.0.1:{self.port}", verify=ctx, timeout=20)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return _pki(tmp_path_factory.mktemp("pki"))


def _mtls_app(monkeypatch, pki, cert_reqs: int, **env: str):
    for k in list(os.environ):
        if k.startswith(("GANGPLANK_AUTH", "GANGPLANK_SSL")):
            monkeypatch.delenv(k)
    monkeypatch.setenv("GANGPLANK_SSL_CERTFILE", str(pki["server.pem"]))
    monkeypatch.setenv("GANGPLANK_SSL_KEYFILE", str(pki["server.key"]))
    monkeypatch.setenv("GANGPLANK_SSL_CA_CERTS", str(pki["ca.pem"]))
    monkeypatch.setenv("GANGPLANK_SSL_CERT_REQS", str(cert_reqs))
    for k, v in env.items():
        monkeypatch.setenv(f"GANGPLANK_{k.upper()}", v)
    get_settings.cache_clear()
    from app.main import create_app

    return create_app()


def test_mtls_handshake_refused_without_a_client_certificate(monkeypatch, pki):
    app = _mtls_app(monkeypatch, pki, 2)
    try:
        with TLSServer(app, pki, cert_reqs=2) as srv:
            with srv.client(pki, "client") as c:
                assert c.get("/version").status_code == 200
                r = c.post("/v1/decisions", content=EXAMPLE, headers=JSON)
                assert r.status_code == 200 and len(r.json()["bindings"]) == 2
            for who in (None, "rogue"):  # no certificate; a certificate from another CA
                with srv.client(pki, who) as c, pytest.raises(httpx.TransportError):
                    c.get("/version")
    finally:
        get_settings.cache_clear()


def test_mtls_client_names_allow_list_and_token_fallback(monkeypatch, pki):
    # optional client certificates: a certificate-less caller may still bring a token
    app = _mtls_app(monkeypatch, pki, 1, auth_client_names="kube-scheduler,other-admin", auth_token=TOKEN)
    try:
        with TLSServer(app, pki, cert_reqs=1) as srv:
            with srv.client(pki, "client") as c:  # CN kube-scheduler: on the list
                assert c.post("/v1/topology", content=EXAMPLE, headers=JSON).status_code == 200
            with srv.client(pki, "other") as c:  # verified, but not on the list
                r = c.post("/v1/topology", content=EXAMPLE, headers=JSON)
                assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
                assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(TOKEN)).status_code == 200
            with srv.client(pki, None) as c:
                assert c.get("/livez").status_code == 200  # probes need no certificate
                assert c.post("/v1/topology", content=EXAMPLE, headers=JSON).status_code == 401
                assert c.post("/v1/topology", content=EXAMPLE, headers=bearer(TOKEN)).status_code == 200
            with srv.client(pki, "rogue") as c, pytest.raises(httpx.TransportError):
                c.get("/livez")  # presented but unverifiable: the handshake fails even when optional
    finally:
        get_settings.cache_clear()


def test_mtls_extender_client_names_keep_the_extender_to_kube_scheduler(monkeypatch, pki):
    # the API allows any verified certificate and a token; /extender/* only kube-scheduler's
    app = _mtls_app(monkeypatch, pki, 1, extender_client_names="kube-scheduler", auth_token=TOKEN)
    body = b'{"Pod": {"metadata": {"name": "p", "namespace": "default"}}, "NodeNames": []}'
    try:
        with TLSServer(app, pki, cert_reqs=1) as srv:
            with srv.client(pki, "client") as c:  # CN kube-scheduler
                assert c.post("/extender/filter", content=body, headers=JSON).status_code != 401
            with srv.client(pki, "other") as c:  # verified, someone-else
                assert c.post("/v1/topology", content=EXAMPLE, headers=JSON).status_code == 200
                assert c.post("/extender/filter", content=body, headers=JSON).status_code == 401
                assert c.post("/extender/filter", content=body, headers=bearer(TOKEN)).status_code == 401
    finally:
        get_settings.cache_clear()


def test_compose_requires_a_token_and_the_example_client_sends_it():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    env = compose["gangplank"]["environment"]
    assert env["GANGPLANK_AUTH_TOKEN"].startswith("${GANGPLANK_AUTH_TOKEN:?")  # compose stops without one
    assert "Authorization: Bearer ${GANGPLANK_AUTH_TOKEN}" in compose["example-client"]["command"]


def test_kube_scheduler_mtls_example_uses_the_extender_tls_fields():
    lines = (ROOT / "deploy" / "kube-scheduler-config.yaml").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("#  - urlPrefix"))
    block = []
    for line in lines[start:]:
        if not line.startswith("#  "):  # the stanza is indented past the prose comments
            break
        block.append(line[1:])
    (ext,) = yaml.safe_load("\n".join(block))  # the commented stanza is valid YAML once uncommented
    assert ext["urlPrefix"].startswith("https://") and ext["enableHTTPS"] is True
    assert set(ext["tlsConfig"]) == {"serverName", "certFile", "keyFile", "caFile"}
    assert {ext["filterVerb"], ext["bindVerb"]} == {"filter", "bind"} and ext["nodeCacheCapable"] is True


def test_cli_serve_refuses_0_0_0_0_without_auth(monkeypatch):
    from typer.testing import CliRunner

    from gangplank.cli import app as cli

    for k in list(os.environ):
        if k.startswith(("GANGPLANK_AUTH", "GANGPLANK_SSL")):
            monkeypatch.delenv(k)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "1"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2
    assert "refusing to serve on 0.0.0.0" in (result.stderr if hasattr(result, "stderr") else result.output)


def test_a_request_h11_refuses_over_tls_still_gets_its_400(monkeypatch, pki):
    # the lingering close without a half-close (asyncio's TLS cannot): the 400 carries its
    # length, the rest of the request is drained, and the client reads the answer
    app = _mtls_app(monkeypatch, pki, 1)
    try:
        with TLSServer(app, pki, cert_reqs=1) as srv:
            ctx = ssl.create_default_context(cafile=str(pki["ca.pem"]))
            with socket.create_connection(("127.0.0.1", srv.port)) as raw, \
                    ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:  # fmt: skip
                s.settimeout(10.0)
                s.sendall(b"GET /" + b"a" * 20_000)
                time.sleep(0.3)  # read by the server: h11 refuses the line
                s.sendall(b"a" * 1_000_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
                got = b""
                while b"\r\n\r\n" not in got or not got.endswith(b"Invalid HTTP request received."):
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    got += chunk
            assert got.startswith(b"HTTP/1.1 400") and b"content-length: 30" in got.lower()
    finally:
        get_settings.cache_clear()
