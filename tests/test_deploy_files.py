"""Static checks of the container files (no Docker engine is available to build or run them)."""

from __future__ import annotations

import fnmatch
import json
import pathlib
import re
import shlex

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
PORT = "8080"


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments) pairs: comments dropped, continuations joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        word, _, rest = (pending + line).partition(" ")
        out.append((word.upper(), rest.strip()))
        pending = ""
    assert not pending, "the Dockerfile ends inside a line continuation"
    return out


def stages() -> list[list[tuple[str, str]]]:
    result: list[list[tuple[str, str]]] = []
    for ins in instructions():
        if ins[0] == "FROM":
            result.append([])
        assert result, "the first instruction must be FROM"
        result[-1].append(ins)
    return result


def final_stage() -> list[tuple[str, str]]:
    return stages()[-1]


def args_of(stage: list[tuple[str, str]], word: str) -> list[str]:
    return [rest for w, rest in stage if w == word]


def exec_form(text: str) -> list[str]:
    value = json.loads(text)  # shell form is not JSON and fails here
    assert isinstance(value, list) and all(isinstance(v, str) for v in value)
    return value


def copy_parts(rest: str) -> tuple[dict[str, str], list[str], str]:
    """COPY [--flag=value ...] src... dest, shell or JSON form."""
    words = shlex.split(rest)
    flags = {}
    while words and words[0].startswith("--"):
        key, _, value = words.pop(0)[2:].partition("=")
        flags[key] = value
    if words and words[0].startswith("["):
        words = exec_form(" ".join(words))
    assert len(words) >= 2, f"COPY needs a source and a destination: {rest!r}"
    return flags, words[:-1], words[-1]


def dockerignored(rel: str) -> bool:
    """Whether .dockerignore keeps `rel` (or a folder holding it) out of the build context."""
    patterns = [
        line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    parts = pathlib.PurePosixPath(rel).parts
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip("/")
        candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        hit = any(
            fnmatch.fnmatchcase(c, pattern) or (pattern.startswith("**/") and fnmatch.fnmatchcase(c.split("/")[-1], pattern[3:]))
            for c in candidates
        )
        if hit:
            ignored = not negate
    return ignored


# -- Dockerfile ---------------------------------------------------------------------------------


def test_dockerfile_is_multi_stage_slim_and_installs_without_dev_extras():
    froms = [rest for w, rest in instructions() if w == "FROM"]
    assert len(froms) >= 2
    assert all(f.split()[0] == "python:3.11-slim-bookworm" for f in froms)
    assert froms[0].split()[-1] == "builder" and " AS " in froms[0].upper()
    builder_runs = " ".join(args_of(stages()[0], "RUN"))
    assert re.search(r"pip install (--\S+ )*\.(\s|$)", builder_runs), "the builder installs the project itself"
    assert "[dev]" not in builder_runs and "compileall" in builder_runs
    final_runs = " ".join(args_of(final_stage(), "RUN"))
    assert "pip install" not in final_runs, "the final stage only copies what the builder made"


def test_dockerfile_final_stage_runs_as_the_created_non_root_user():
    stage = final_stage()
    users = args_of(stage, "USER")
    assert users, "the final stage sets USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")
    created = " ".join(args_of(stage, "RUN"))
    assert re.search(rf"useradd\b.*--uid {re.escape(user)}\b", created) or re.search(rf"useradd\b.*\b{re.escape(user)}$", created)
    assert [w for w, _ in stage].index("USER") > max(i for i, (w, _) in enumerate(stage) if w in ("RUN", "COPY"))


def test_dockerfile_env_keeps_runtime_free_of_writes():
    env = " ".join(args_of(final_stage(), "ENV"))
    assert "PATH=/app/.venv/bin:$PATH" in env
    assert "PYTHONDONTWRITEBYTECODE=1" in env and "PYTHONUNBUFFERED=1" in env


def test_dockerfile_healthcheck_probes_livez_on_the_exposed_port_without_curl():
    stage = final_stage()
    assert PORT in " ".join(args_of(stage, "EXPOSE")).split()
    (health,) = args_of(stage, "HEALTHCHECK")
    probe = exec_form(health[health.index("CMD") + 3 :].strip())
    assert probe[0] == "python" and probe[1] == "-c", "slim images have no curl or wget"
    assert f"http://127.0.0.1:{PORT}/livez" in probe[2]
    compile(probe[2], "<healthcheck>", "exec")  # the probe is valid Python


def test_dockerfile_cmd_is_exec_form_launcher_serving_the_app_on_the_exposed_port():
    cmd = exec_form(args_of(final_stage(), "CMD")[-1])
    # app.serve checks authentication before it runs uvicorn on app.main:app
    assert cmd[:3] == ["python", "-m", "app.serve"]
    assert (ROOT / "app" / "serve.py").is_file() and "app.main:app" in (ROOT / "app" / "serve.py").read_text()
    assert cmd[cmd.index("--host") + 1] == "0.0.0.0"
    assert cmd[cmd.index("--port") + 1] == PORT
    from app.serve import parser

    parser().parse_args(cmd[3:])  # every flag of the CMD is one the launcher knows


def test_the_app_the_image_serves_answers_the_probe(client):
    # `client` wraps app.main:app, the module the CMD names
    assert client.get("/livez").status_code == 200


def test_every_file_the_dockerfile_copies_exists_and_is_in_the_build_context():
    copied = 0
    for word, rest in instructions():
        if word not in ("COPY", "ADD"):
            continue
        flags, sources, _ = copy_parts(rest)
        if "from" in flags:
            continue
        for src in sources:
            assert (ROOT / src).exists(), f"COPY names {src}, which is not in the repository"
            assert not dockerignored(src), f".dockerignore keeps {src} out of the build context"
            copied += 1
    assert copied >= 4  # pyproject.toml, README.md, app, api_schemas


def test_final_stage_copies_only_what_the_builder_made():
    builder_name = stages()[0][0][1].split()[-1]
    builder = stages()[0]
    workdir = args_of(builder, "WORKDIR")[-1].rstrip("/")
    made = ["/app/.venv"] + [
        (dest if dest.startswith("/") else f"{workdir}/{dest}").rstrip("/").replace("/./", "/").removesuffix("/.")
        for _, _, dest in (copy_parts(r) for r in args_of(builder, "COPY"))
    ]
    assert "python -m venv /app/.venv" in " ".join(args_of(builder, "RUN"))
    from_builder = [copy_parts(r) for r in args_of(final_stage(), "COPY") if "--from" in r]
    assert {s for _, srcs, _ in from_builder for s in srcs} >= {"/app/.venv", "/app/app", "/app/api_schemas"}
    for flags, sources, _ in from_builder:
        assert flags["from"] == builder_name
        for src in sources:
            assert any(src == m or src.startswith(m + "/") for m in made), f"the builder never makes {src}"


def test_dockerignore_keeps_local_state_out_and_the_sources_in():
    for rel in (".venv/bin/python", ".git/HEAD", "app/__pycache__/main.cpython-311.pyc", ".pytest_cache/v", ".bench/x"):
        assert dockerignored(rel), rel
    for rel in ("pyproject.toml", "README.md", "app/main.py", "api_schemas/decision.py"):
        assert not dockerignored(rel), rel


# -- docker-compose.yml ------------------------------------------------------------------------


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_serves_gangplank_read_only_as_the_image_user_with_a_healthcheck():
    services = compose()["services"]
    assert set(services) >= {"gangplank", "example-client"}
    svc = services["gangplank"]
    build = svc["build"]
    context = build if isinstance(build, str) else build.get("context", ".")
    dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
    assert (ROOT / context / dockerfile).is_file()
    assert f"{PORT}:{PORT}" in [str(p) for p in svc["ports"]]
    assert svc["read_only"] is True
    assert str(svc["user"]) == args_of(final_stage(), "USER")[-1]
    test = svc["healthcheck"]["test"]
    assert test[0] in ("CMD", "CMD-SHELL") and f"127.0.0.1:{PORT}/livez" in " ".join(test)


def test_compose_client_posts_the_mounted_example_once_the_service_is_healthy():
    client = compose()["services"]["example-client"]
    assert client["image"].startswith("curlimages/curl")
    assert client["read_only"] is True
    assert client["depends_on"]["gangplank"]["condition"] == "service_healthy"
    mounts = {}
    for volume in client["volumes"]:
        host, target, *mode = volume.split(":")
        mounts[target] = (host, mode)
    host, mode = mounts["/examples"]
    assert mode == ["ro"] and (ROOT / host).resolve() == ROOT / "examples"
    command = client["command"]
    command = shlex.split(command) if isinstance(command, str) else command
    data = command[command.index("--data-binary") + 1]
    assert data == "@/examples/volcano-small.json" and (ROOT / "examples" / "volcano-small.json").is_file()
    assert f"http://gangplank:{PORT}/v1/decisions" in command
    assert "POST" in command
    assert str(client.get("restart", "no")) == "no", "the client runs once"


def test_the_image_ships_the_cli_a_wheel_of_exactly_the_builders_inputs_runs_gangplank_version(tmp_path):
    # the builder stage's COPY sources, and nothing else, make the wheel the image installs:
    # its `gangplank` command must import (the CLI package was once left out of the image)
    import shutil
    import subprocess
    import sys
    import zipfile

    src = tmp_path / "src"
    src.mkdir()
    for args in args_of(stages()[0], "COPY"):
        *sources, _dest = shlex.split(args)
        for s in sources:
            path = ROOT / s
            (shutil.copytree if path.is_dir() else shutil.copy2)(path, src / s)
    out = tmp_path / "wheel"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), f"{src}/"],
                           capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        entry = next(n for n in names if n.endswith("entry_points.txt"))
        assert "gangplank = gangplank.cli:app" in z.read(entry).decode()
        z.extractall(tmp_path / "site")
    assert any(n.startswith("gangplank/cli.py") for n in names)
    r = subprocess.run([sys.executable, "-c", "import sys; sys.argv = ['gangplank', '--version']; "
                        "from gangplank.cli import app; app()"],
                       capture_output=True, text=True, cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "site")})  # fmt: skip
    assert r.returncode == 0 and r.stdout.strip().startswith("gangplank "), r.stderr
