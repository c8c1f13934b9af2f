"""Connection settings for the Kubernetes API: kubeconfig files, the in-cluster service
account, TLS and credentials (a bearer token re-read when its file changes).

Only what a read-only client needs: server URL, CA (file or data), ``insecure-skip-tls-verify``,
``tls-server-name``, a token (inline or ``tokenFile``), a client certificate and key (files
or data), basic credentials, and ``exec`` credential plugins (``client.authentication.k8s.io``
v1 / v1beta1, as EKS, GKE and AKS kubeconfigs use: the command runs without a terminal, its
``ExecCredential`` token is used until its ``expirationTimestamp`` and fetched again then
or on a 401; a client certificate it returns is read once, at start). The kubeconfig is
the operator's, never a request's. The deprecated ``auth-provider`` is refused with a clear
message.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import pathlib
import ssl
import subprocess
import tempfile
import time
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
import yaml

from app.extender.source import SnapshotUnavailable

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


class KubeConfigError(SnapshotUnavailable):
    """The connection settings cannot be used (missing file, bad field, unsupported auth)."""


@dataclass
class KubeConfig:
    """How to reach and authenticate to one API server."""

    server: str
    origin: str  # where it came from, for messages
    ca_file: str | None = None
    ca_data: str | None = None  # PEM
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None
    token: str | None = None
    token_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    cert_data: bytes | None = None
    key_data: bytes | None = None
    username: str | None = None
    password: str | None = None
    exec_plugin: ExecPlugin | None = None

    def ssl_context(self) -> ssl.SSLContext:
        """Trust only the cluster CA when one is given (as client-go does), else the system's."""
        try:
            ctx = ssl.create_default_context(cafile=self.ca_file, cadata=self.ca_data)
        except (OSError, ssl.SSLError, ValueError) as exc:
            raise KubeConfigError(f"{self.origin}: cannot load the certificate authority: {exc}") from exc
        if self.insecure_skip_tls_verify:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        if self.cert_file or self.cert_data:
            self._load_client_cert(ctx)
        return ctx

    def _load_client_cert(self, ctx: ssl.SSLContext) -> None:
        try:
            if self.cert_data is None and self.key_data is None:
                ctx.load_cert_chain(str(self.cert_file), str(self.key_file))
                return
            # ssl loads certificates from files only: write the inline data to a private
            # directory just long enough to load it.
            with tempfile.TemporaryDirectory(prefix="gangplank-kube-") as tmp:
                cert = self.cert_file or _write_private(pathlib.Path(tmp) / "client.crt", self.cert_data or b"")
                key = self.key_file or _write_private(pathlib.Path(tmp) / "client.key", self.key_data or b"")
                ctx.load_cert_chain(cert, key)
        except (OSError, ssl.SSLError) as exc:
            raise KubeConfigError(f"{self.origin}: cannot load the client certificate and key: {exc}") from exc


def _write_private(path: pathlib.Path, data: bytes) -> str:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return str(path)


def in_cluster_config(sa_dir: str = SERVICE_ACCOUNT_DIR, env: dict[str, str] | os._Environ[str] | None = None) -> KubeConfig:
    """The pod's service account: ``KUBERNETES_SERVICE_HOST``/``_PORT``, token and CA files."""
    env = os.environ if env is None else env
    host = env.get("KUBERNETES_SERVICE_HOST", "").strip()
    port = env.get("KUBERNETES_SERVICE_PORT", "").strip()
    if not host or not port:
        raise KubeConfigError("not running in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set "
                              "(set GANGPLANK_KUBECONFIG or KUBECONFIG to use a kubeconfig file)")  # fmt: skip
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # IPv6
    root = pathlib.Path(sa_dir)
    token = root / "token"
    if not token.is_file():
        raise KubeConfigError(f"in-cluster: no service-account token at {token}")
    ca = root / "ca.crt"
    return KubeConfig(server=f"https://{host}:{port}", origin=f"in-cluster ({root})", token_file=str(token),
                      ca_file=str(ca) if ca.is_file() else None)  # fmt: skip


def kubeconfig_config(paths: Iterable[str], context: str = "") -> KubeConfig:
    """A kubeconfig (or several, merged as kubectl does: the first file to define a name wins)."""
    files = [p for p in paths if p]
    if not files:
        raise KubeConfigError("no kubeconfig file given")
    current = ""
    entries: dict[str, dict[str, tuple[dict[str, Any], pathlib.Path]]] = {"clusters": {}, "users": {}, "contexts": {}}
    for name in files:
        path = pathlib.Path(name).expanduser()
        try:
            doc = yaml.safe_load(path.read_text())
        except OSError as exc:
            if len(files) > 1 and not path.exists():
                continue  # kubectl skips missing files of a path list
            raise KubeConfigError(f"kubeconfig {path}: {exc}") from exc
        except yaml.YAMLError as exc:
            raise KubeConfigError(f"kubeconfig {path} is not valid YAML: {exc}") from exc
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise KubeConfigError(f"kubeconfig {path} must be a mapping")
        current = current or str(doc.get("current-context") or "")
        for section, inner in (("clusters", "cluster"), ("users", "user"), ("contexts", "context")):
            items = doc.get(section) or []
            if not isinstance(items, list):
                raise KubeConfigError(f"kubeconfig {path}: '{section}' must be a list")
            for i, item in enumerate(items):
                if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                    raise KubeConfigError(f"kubeconfig {path}: {section}[{i}] needs a 'name'")
                body = item.get(inner) or {}
                if not isinstance(body, dict):
                    raise KubeConfigError(f"kubeconfig {path}: {section}[{item['name']}].{inner} must be a mapping")
                entries[section].setdefault(item["name"], (body, path.parent))
    chosen = context or current
    if not chosen:
        raise KubeConfigError(f"kubeconfig {', '.join(files)}: no current-context (set GANGPLANK_KUBE_CONTEXT)")
    if chosen not in entries["contexts"]:
        raise KubeConfigError(f"kubeconfig {', '.join(files)}: context {chosen!r} is not defined")
    ctx, _ = entries["contexts"][chosen]
    where = f"kubeconfig {', '.join(files)} (context {chosen})"
    cluster_name = ctx.get("cluster")
    if cluster_name not in entries["clusters"]:
        raise KubeConfigError(f"{where}: cluster {cluster_name!r} is not defined")
    cluster, cbase = entries["clusters"][cluster_name]
    server = cluster.get("server")
    if not isinstance(server, str) or not server.startswith(("https://", "http://")):
        raise KubeConfigError(f"{where}: clusters[{cluster_name}].cluster.server must be an http(s) URL")
    cfg = KubeConfig(server=server.rstrip("/"), origin=where,
                     insecure_skip_tls_verify=bool(cluster.get("insecure-skip-tls-verify", False)),
                     tls_server_name=cluster.get("tls-server-name") or None)  # fmt: skip
    if cluster.get("certificate-authority-data"):
        ca = _b64(cluster["certificate-authority-data"], f"{where}: certificate-authority-data")
        cfg.ca_data = ca.decode("ascii", "replace")
    elif cluster.get("certificate-authority"):
        cfg.ca_file = str(cbase / str(cluster["certificate-authority"]))
    user_name = ctx.get("user")
    if user_name:
        if user_name not in entries["users"]:
            raise KubeConfigError(f"{where}: user {user_name!r} is not defined")
        user, ubase = entries["users"][user_name]
        _read_user(cfg, user, ubase, f"{where}: users[{user_name}].user")
    return cfg


def _read_user(cfg: KubeConfig, user: dict[str, Any], base: pathlib.Path, where: str) -> None:
    if user.get("auth-provider"):
        raise KubeConfigError(f"{where}.auth-provider: the deprecated auth-provider plugins are not run by Gangplank; "
                              "use an exec plugin, a token, tokenFile or a client certificate")  # fmt: skip
    if user.get("exec"):
        cfg.exec_plugin = ExecPlugin.read(user["exec"], base, f"{where}.exec")
        status = cfg.exec_plugin.credential()
        if status.get("clientCertificateData") and status.get("clientKeyData"):
            cfg.cert_data = str(status["clientCertificateData"]).encode()
            cfg.key_data = str(status["clientKeyData"]).encode()
    if user.get("token"):
        cfg.token = str(user["token"]).strip()
    elif user.get("tokenFile"):
        cfg.token_file = str(base / str(user["tokenFile"]))
    if user.get("client-certificate-data"):
        cfg.cert_data = _b64(user["client-certificate-data"], f"{where}.client-certificate-data")
    elif user.get("client-certificate"):
        cfg.cert_file = str(base / str(user["client-certificate"]))
    if user.get("client-key-data"):
        cfg.key_data = _b64(user["client-key-data"], f"{where}.client-key-data")
    elif user.get("client-key"):
        cfg.key_file = str(base / str(user["client-key"]))
    if bool(cfg.cert_file or cfg.cert_data) != bool(cfg.key_file or cfg.key_data):
        raise KubeConfigError(f"{where}: a client certificate needs its key and a key its certificate")
    if user.get("username") is not None:
        cfg.username, cfg.password = str(user["username"]), str(user.get("password") or "")


def _b64(value: Any, where: str) -> bytes:
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise KubeConfigError(f"{where} is not valid base64: {exc}") from exc


#: The credential plugin APIs an ``exec`` entry may name.
EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
#: Longest a credential plugin may take (a cloud CLI fetching a token).
EXEC_TIMEOUT_S = 60.0


@dataclass
class ExecPlugin:
    """A kubeconfig ``exec`` credential plugin."""

    command: str
    args: list[str]
    env: dict[str, str]
    api_version: str
    where: str
    _status: dict[str, Any] | None = None
    _expires: float | None = None

    @classmethod
    def read(cls, raw: Any, base: pathlib.Path, where: str) -> ExecPlugin:
        if not isinstance(raw, dict) or not isinstance(raw.get("command"), str) or not raw["command"]:
            raise KubeConfigError(f"{where}: an exec plugin needs a 'command'")
        api = str(raw.get("apiVersion") or "")
        if api not in EXEC_API_VERSIONS:
            raise KubeConfigError(f"{where}.apiVersion: {api!r} is not one of {', '.join(EXEC_API_VERSIONS)}")
        if raw.get("interactiveMode") == "Always":
            raise KubeConfigError(f"{where}.interactiveMode: Always needs a terminal, which a service has not")
        command = str(raw["command"])
        if os.sep in command and not os.path.isabs(command):  # relative to the kubeconfig, as client-go does
            command = str(base / command)
        args = [str(a) for a in raw.get("args") or []]
        env = {str(e.get("name")): str(e.get("value") or "") for e in raw.get("env") or [] if isinstance(e, dict)}
        return cls(command, args, env, api, where)

    def credential(self, *, force: bool = False) -> dict[str, Any]:
        """The plugin's ``ExecCredential`` status, run again once expired (or when forced)."""
        if not force and self._status is not None and (self._expires is None or time.time() < self._expires - 10):
            return self._status
        info = {"apiVersion": self.api_version, "kind": "ExecCredential", "spec": {"interactive": False}}
        try:
            done = subprocess.run([self.command, *self.args], env={**os.environ, **self.env,
                                  "KUBERNETES_EXEC_INFO": json.dumps(info)}, stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=EXEC_TIMEOUT_S, check=False)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise KubeConfigError(f"{self.where}: the credential plugin {self.command!r} could not run: {exc}") from exc
        if done.returncode != 0:
            tail = done.stderr.decode("utf-8", "replace").strip()[-300:]
            raise KubeConfigError(f"{self.where}: the credential plugin {self.command!r} exited {done.returncode}: {tail}")
        try:
            cred = json.loads(done.stdout)
        except ValueError as exc:
            raise KubeConfigError(f"{self.where}: the credential plugin {self.command!r} did not print JSON") from exc
        status = cred.get("status") if isinstance(cred, dict) and cred.get("kind") == "ExecCredential" else None
        if not isinstance(status, dict) or not (status.get("token") or status.get("clientCertificateData")):
            raise KubeConfigError(f"{self.where}: the credential plugin {self.command!r} printed no ExecCredential "
                                  "status with a token or a client certificate")  # fmt: skip
        self._status = status
        expires = status.get("expirationTimestamp")
        self._expires = datetime.fromisoformat(str(expires).replace("Z", "+00:00")).timestamp() if expires else None
        return status

    def token(self, *, force: bool = False) -> str:
        try:
            return str(self.credential(force=force).get("token") or "")
        except KubeConfigError as exc:  # on a request: a transport failure the source backs off from
            raise httpx.TransportError(str(exc)) from exc


class TokenFile:
    """A bearer token in a file, re-read when the file changes (bound tokens rotate)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._token = ""

    def get(self, *, force: bool = False) -> str:
        try:
            st = os.stat(self.path)
            stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
            if force or stamp != self._stamp:
                self._token = pathlib.Path(self.path).read_text().strip()
                self._stamp = stamp
        except OSError as exc:
            raise httpx.TransportError(f"cannot read the token file {self.path}: {exc}") from exc
        return self._token


class KubeAuth(httpx.Auth):
    """Bearer token (static or from a file) or basic credentials; on 401 a token file is re-read once."""

    def __init__(self, cfg: KubeConfig) -> None:
        self.token = cfg.token
        self.token_file = TokenFile(cfg.token_file) if cfg.token_file else None
        self.exec_plugin = cfg.exec_plugin
        self.basic = None
        if cfg.username is not None:
            pair = f"{cfg.username}:{cfg.password or ''}".encode()
            self.basic = "Basic " + base64.b64encode(pair).decode("ascii")

    def _apply(self, request: httpx.Request, *, force: bool = False) -> str:
        if self.exec_plugin is not None:
            token = self.exec_plugin.token(force=force)
        else:
            token = self.token_file.get() if self.token_file else (self.token or "")
        if token:
            request.headers["Authorization"] = f"Bearer {token}"
        elif self.basic is not None:
            request.headers["Authorization"] = self.basic
        return token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        used = self._apply(request)
        response = yield request
        if response.status_code != 401:
            return
        if self.exec_plugin is not None:  # an expired or revoked token: ask the plugin once more
            if self._apply(request, force=True) != used:
                yield request
        elif self.token_file is not None and self.token_file.get(force=True) != used:
            self._apply(request)
            yield request


